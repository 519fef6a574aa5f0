import type { FastifyInstance } from 'fastify';
import type { Authenticator, Caller } from './authenticate.js';

/** Who may call a route: its `config.access` route option. */
export type RouteAccess =
  /** Anyone; no header is checked. */
  | 'public'
  /** An `Authorization` header the service's authenticator accepts (the default). */
  | 'caller'
  /** An end user's ID token (`authenticateUser`), never a service credential. */
  | 'user'
  /** The management API key. */
  | 'management'
  /** The management API key when its header is present, else an `Authorization` header. */
  | 'management-or-caller';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Who may call the route; default `caller`. Read by the service's auth hook. */
    access?: RouteAccess;
  }
  interface FastifyRequest {
    /** The authenticated caller, set by the auth hook (undefined on public and management routes). */
    caller: Caller | undefined;
  }
}

/** Options of {@link installAuthHook}. */
export interface AuthHookOptions {
  /** Checks the `Authorization` header. */
  authenticate: Authenticator;
  /** Checks the `Authorization` header of `user` routes. */
  authenticateUser?: Authenticator;
  /** The management key check, for services that have management routes. */
  management?: {
    /** Throws a 401 `invalid_api_key` ApiError for a missing or wrong key. */
    check: (given: string | string[] | undefined) => void;
    /** Lower-case name of the key's header. */
    field: string;
  };
}

/**
 * Adds a service's authentication as an `onRequest` hook, so every route of the service
 * (registered in the same plugin) is checked before its body is read or validated: the route's
 * `config.access` says how; an authenticated caller lands in `request.caller`. Refusals are the
 * authenticator's and the key check's 401 ApiErrors.
 *
 * @example
 * installAuthHook(app, { authenticate, management: { check: checkApiKey, field: 'service-apikey' } });
 * app.get('/enabled', { config: { access: 'caller' } }, async (request) => request.caller!.sub);
 */
export function installAuthHook(app: FastifyInstance, options: AuthHookOptions): void {
  if (!app.hasRequestDecorator('caller')) app.decorateRequest('caller', undefined);
  const { authenticate, authenticateUser, management } = options;
  app.addHook('onRequest', async (request) => {
    const access = request.routeOptions.config.access ?? 'caller';
    if (access === 'public') return;
    const managed =
      access === 'management' ||
      (access === 'management-or-caller' &&
        management !== undefined &&
        request.headers[management.field] !== undefined);
    if (managed) {
      if (!management) throw new Error('A management route in a service without a key check');
      management.check(request.headers[management.field]);
      return;
    }
    if (access === 'user') {
      if (!authenticateUser) throw new Error('A user route in a service without a user check');
      request.caller = await authenticateUser(request);
      return;
    }
    request.caller = await authenticate(request);
  });
}
