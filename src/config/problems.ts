/**
 * What the config checks write into (`validate.ts` and the field groups beside it): one line per
 * problem, led by the field path.
 */
export class Problems {
  readonly list: string[] = [];
  add(path: string, message: string): void {
    this.list.push(`${path}: ${message}`);
  }
}

/** The field checks `validate.ts` has, passed in to the field groups (`validate-sign-in.ts` and the like). */
export interface FieldChecks {
  describe(value: unknown): string;
  bool(p: Problems, path: string, value: unknown): void;
  int(p: Problems, path: string, value: unknown, min: number, max?: number): void;
  stringList(p: Problems, path: string, value: unknown, required: boolean): string[];
}
