/** Secrets out of anything the fuzzer prints: a failure report must not become the leak. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) out = out.split(secret).join('<redacted>');
  return out;
}
