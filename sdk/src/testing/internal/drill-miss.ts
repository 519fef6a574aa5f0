// A drill that breaks a URL the app does not use changes nothing, and the test passes or fails
// for the wrong reason (`localhost` in the drill, `127.0.0.1` in the client; the mock's default
// port in the drill, a free port in the client). A named drill therefore ends with one handler
// that only watches: it sees the requests no handler of the drill took, and when one of them is
// a request to the broken service's routes on another origin, it warns once, naming both URLs.
// It never answers, so the requests go on to the handlers behind the drill. Private to the kit.
import { type HttpHandler, http } from 'msw';

/** The routes of each service a drill can break (docs/protocol.md), to recognise its requests. */
export const SERVICE_ROUTES = {
  mainUrl: ['/authz/.jwt', '/authz/.json', '/.well-known/jwks.json', '/licensing/actions/checkout'],
  standbyUrl: ['/authz/.jwt', '/.well-known/jwks.json', '/enabled', '/disabled', '/signing-keys'],
  idpUrl: ['/token', '/.well-known/jwks.json', '/.well-known/openid-configuration'],
  eventUrl: ['/get', '/put'],
} as const;

/** A service a drill breaks: the option naming it and its base URL. */
export interface BrokenService {
  option: keyof typeof SERVICE_ROUTES;
  base: string;
}

function isUnder(url: URL, base: string): boolean {
  const root = new URL(base);
  const path = root.pathname.replace(/\/+$/, '');
  return (
    url.origin === root.origin && (url.pathname === path || url.pathname.startsWith(`${path}/`))
  );
}

/** The client's base URL when `url` is a request to `service`'s routes on another origin. */
function sameServiceElsewhere(url: URL, service: BrokenService): string | undefined {
  const root = new URL(service.base);
  const path = root.pathname.replace(/\/+$/, '');
  if (url.origin === root.origin || !url.pathname.startsWith(`${path}/`)) return undefined;
  const route = url.pathname.slice(path.length);
  const known = SERVICE_ROUTES[service.option].some(
    (candidate) => route === candidate || route.startsWith(`${candidate}/`),
  );
  return known ? `${url.origin}${path}` : undefined;
}

/**
 * The watching handler of one drill: `label` names the drill in the warning, `broken` are the
 * services it breaks, `known` every base URL it was given (requests under them are expected).
 * `warn` defaults to `console.warn`.
 */
export function watchForMissedDrill(
  label: string,
  broken: readonly BrokenService[],
  known: readonly string[],
  warn: (message: string) => void = (message) => console.warn(message),
): HttpHandler {
  let warned = false;
  return http.all('*', ({ request }) => {
    if (warned) return undefined;
    const url = new URL(request.url);
    if (known.some((base) => isUnder(url, base))) return undefined;
    for (const service of broken) {
      const clientBase = sameServiceElsewhere(url, service);
      if (clientBase === undefined) continue;
      warned = true;
      warn(
        `[@standby-licensing/sdk/testing] ${label} breaks ${service.base}, but the app sent ${request.method} ${url.href}, which the drill does not match: for this client it changes nothing. Give the drill the client's ${service.option} (${clientBase}), or the client the drill's.`,
      );
      break;
    }
    return undefined;
  });
}
