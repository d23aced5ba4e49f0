/** A JSON value, for claims and custom response parameters. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
