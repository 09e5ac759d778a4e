// The addresses plainrest asks an identity provider at (README: Provider tokens): https, or plain http only to this
// machine (a provider run for tests). Checked when the settings are read, so that a wrong address stops the start,
// and again for the keys' address a discovery document gives.

/** Throws unless `url` is https, or http to this machine (a provider run for tests). */
export function requireProviderUrl(url: string, what: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`${what} is not a URL: ${url}`);
  }
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(parsed.hostname);
  if (parsed.protocol === 'https:' || (parsed.protocol === 'http:' && loopback)) return parsed;
  throw new Error(`${what} must be https (plain http only on this machine): ${url}`);
}
