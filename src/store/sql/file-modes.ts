/**
 * A SQLite database holds refresh-token hashes, sessions and, without a key-encryption key, the
 * private signing keys in the clear: no other local account may read it. The service creates
 * the file (and any folder on its way) for its owner only; SQLite gives the `-wal` and `-shm`
 * files it creates beside it the database file's mode. A file that exists already keeps the
 * mode its operator gave it, and start-up names it when others can read or write it.
 */
import { closeSync, openSync, statSync } from 'node:fs';

/** The database and the files SQLite keeps beside it in WAL mode. */
const companions = (path: string): string[] => [path, `${path}-wal`, `${path}-shm`];

export interface WideFile {
  readonly file: string;
  /** Octal, as `ls -l` and `chmod` spell it: `"0644"`. */
  readonly mode: string;
}

/** The database's files, among those that exist, that a group or other users can read or write. */
export function filesOpenToOthers(path: string): WideFile[] {
  const wide: WideFile[] = [];
  for (const file of companions(path)) {
    let mode: number;
    try {
      mode = statSync(file).mode & 0o777;
    } catch {
      continue;
    }
    if ((mode & 0o077) !== 0) wide.push({ file, mode: `0${mode.toString(8)}` });
  }
  return wide;
}

/** Creates the database file for its owner only (0600), when it does not exist yet; an existing file is left as it is. */
export function createOwnerOnly(path: string): void {
  closeSync(openSync(path, 'a', 0o600));
}
