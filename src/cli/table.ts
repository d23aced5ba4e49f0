/** Plain-text columns for the CLI's listings: padded to the widest cell, no trailing blanks. */
export function table(rows: ReadonlyArray<readonly string[]>): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
  return rows.map((row) => row.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd()).join('\n') + '\n';
}
