/** Reason phrases of the statuses an `error` fault answers with an HTML page. */
const STATUS_TEXT: Record<number, string> = {
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

/**
 * The error page a load balancer or reverse proxy shows for `status` (what an `error` fault
 * answers).
 *
 * @example
 * reply.code(503).type('text/html; charset=utf-8').send(htmlErrorPage(503));
 */
export function htmlErrorPage(status: number): string {
  const text = STATUS_TEXT[status] ?? 'Error';
  return `<!DOCTYPE html>\n<html><head><title>${status} ${text}</title></head><body><h1>${status} ${text}</h1><p>The server is temporarily unable to service your request.</p></body></html>\n`;
}

/**
 * The login page a captive portal (hotel Wi-Fi, a corporate proxy) answers every request with,
 * status 200: what a `captive-portal` fault answers. The testing kit's `CAPTIVE_PORTAL_PAGE` is
 * the same page.
 */
export const CAPTIVE_PORTAL_PAGE =
  '<!DOCTYPE html>\n<html><head><title>Sign in to the network</title></head><body><form method="post" action="/login"><input name="room"><button>Connect</button></form></body></html>\n';
