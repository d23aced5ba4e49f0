/**
 * Distinguished names compared as sets of `type=value` pairs: a configured name is written the
 * RFC 4514 way (`CN=client, O=Example, C=DE`, most significant last), while Node prints a
 * certificate's subject one attribute per line, most significant first (`C=DE\nO=Example\nCN=client`).
 * Attribute types compare case-insensitively (`cn` = `CN`), values after trimming and
 * case-insensitively (X.520 caseIgnoreMatch, the matching rule of the usual attributes).
 */

/** Splits at unescaped separators (`,` `;` `+` of RFC 4514, the newlines of Node's form). */
function split(text: string): string[] {
  const parts: string[] = [];
  let current = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\\' && i + 1 < text.length) {
      current += c + text[++i];
    } else if (c === ',' || c === ';' || c === '+' || c === '\n') {
      parts.push(current);
      current = '';
    } else current += c;
  }
  parts.push(current);
  return parts.filter((p) => p.trim() !== '');
}

/** RFC 4514 §2.4: `\,` and friends, and `\2C` hex pairs. */
function unescape(value: string): string {
  const bytes: number[] = [];
  for (let i = 0; i < value.length; i++) {
    const c = value[i]!;
    if (c === '\\' && /^[0-9a-fA-F]{2}$/.test(value.slice(i + 1, i + 3))) {
      bytes.push(parseInt(value.slice(i + 1, i + 3), 16));
      i += 2;
    } else if (c === '\\' && i + 1 < value.length) {
      bytes.push(...Buffer.from(value[++i]!, 'utf8'));
    } else bytes.push(...Buffer.from(c, 'utf8'));
  }
  return Buffer.from(bytes).toString('utf8');
}

/** The name's canonical form, or `undefined` when a part is not `type=value`. */
export function canonicalName(name: string): string | undefined {
  const pairs: string[] = [];
  for (const part of split(name)) {
    const eq = part.indexOf('=');
    if (eq <= 0) return undefined;
    const type = part.slice(0, eq).trim().toLowerCase();
    const value = unescape(part.slice(eq + 1).trim()).replace(/\s+/g, ' ').toLowerCase();
    if (type === '' || !/^[a-z0-9.-]+$/.test(type)) return undefined;
    pairs.push(`${type}=${value}`);
  }
  return pairs.length === 0 ? undefined : pairs.sort().join('\n');
}
