// What an error log line may not repeat (OWASP API8:2023 Security Misconfiguration): a cause can quote the data it
// failed on (a database driver's "failing row contains (…)"), so password hashes, bearer tokens, API keys, JSON
// password fields and the passwords the request itself carried are replaced before the line is written.

const SCRYPT_HASH = /scrypt\$[^\s"',;)}\]]*/g;
const BEARER_TOKEN = /eyJ[\w-]+\.[\w-]+\.[\w-]*/g;
const API_KEY = /prk_[\w-]{43}/g;
const PASSWORD_FIELD = /("(?:password|password_hash|senha)"\s*:\s*)"(?:[^"\\]|\\.)*"/g;

/** `text` with secrets replaced by `[redacted]`; `known` are exact values to hide too (the request's passwords). */
export function redactSecrets(text: string, known: readonly string[] = []): string {
  let redacted = text
    .replace(SCRYPT_HASH, '[redacted]')
    .replace(BEARER_TOKEN, '[redacted]')
    .replace(API_KEY, '[redacted]')
    .replace(PASSWORD_FIELD, '$1"[redacted]"');
  for (const secret of known) if (secret !== '') redacted = redacted.split(secret).join('[redacted]');
  return redacted;
}
