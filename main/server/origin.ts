/**
 * Who may talk to browser mode besides holding the token: requests must name this machine in
 * their Host header (a DNS-rebound name like evil.example, resolving to 127.0.0.1, is refused), and
 * a browser's event socket must come from the page's own origin (not another site's page).
 */

const LOCAL_HOST_NAMES: ReadonlySet<string> = new Set(["127.0.0.1", "localhost"]);

/** `127.0.0.1:43121` or `localhost:43121` (any port: an SSH tunnel may forward another one). */
export function isLocalHost(host: string | undefined): boolean {
  const url = hostUrl(host);
  return url !== null && LOCAL_HOST_NAMES.has(url.hostname);
}

function hostUrl(host: string | undefined): URL | null {
  if (!host) return null;
  try {
    return new URL(`http://${host}`);
  } catch {
    return null;
  }
}

/** No Origin (not a browser) or exactly the origin the request was addressed to. */
export function isSameOrigin(origin: string | undefined, host: string | undefined): boolean {
  if (origin === undefined) return true;
  try {
    const url = new URL(origin);
    return url.protocol === "http:" && url.host === hostUrl(host)?.host;
  } catch {
    return false;
  }
}
