import type { FastifyInstance } from 'fastify';
import { createFaultHook } from '../admin/fault-hook.js';
import type { FaultRegistry } from '../admin/fault-registry.js';
import { installAuthHook } from '../auth/auth-hook.js';
import { createAuthenticator } from '../auth/authenticate.js';
import { toX5c } from '../crypto/certificates.js';
import { toPublicJwk } from '../crypto/jwk.js';
import { issueLeaseTokens } from '../licensing/issue-lease-tokens.js';
import { addFormBodyParser, serviceBaseUrl } from '../licensing/request-parameters.js';
import { sendLeaseTokens } from '../licensing/send-lease-tokens.js';
import { loadMainCertificates } from './main-certificates.js';
import { authzSchema, checkoutSchema, jwksSchema } from './schemas.js';

/** Options of {@link mainService}. */
export interface MainServiceOptions {
  /** Faults injected by the admin API; absent when admin is off (no hook at all then). */
  faults?: FaultRegistry;
}

interface CheckoutLine {
  productName: string;
  qty: number;
  qtyDimension: 'SEATS' | 'USE_COUNT' | 'USE_TIME';
}

interface CheckoutResult {
  productName: string;
  granted: boolean;
  jwt?: string;
  errorCode?: string;
  errorDescription?: string;
}

/**
 * The mock main licensing service, mounted at `/main`: `/authz/.jwt` against the catalogue
 * (`config.items`, `*` = every item), `POST /licensing/actions/checkout`, and a public JWKS of the
 * main deployment key with its `x5c` chain. ID tokens must be unexpired here (no grace).
 */
export async function mainService(
  app: FastifyInstance,
  options: MainServiceOptions = {},
): Promise<void> {
  const now = () => app.clock.now();
  const signer = app.keyring.main;
  const chain = await loadMainCertificates(app.store, signer, now());
  const jwks = { keys: [toPublicJwk(signer, toX5c(chain))] };
  const catalogue = app.config.items;
  const isLicensed = catalogue.has('*') ? undefined : (item: string) => catalogue.has(item);
  const prefix = app.prefix;

  // The main service keeps no state of its own (its key and chain are permanent).
  app.resets.set('main', () => undefined);
  addFormBodyParser(app);
  // Faults first: an outage answers before anything else runs.
  if (options.faults) app.addHook('onRequest', createFaultHook(options.faults, prefix));
  installAuthHook(app, {
    authenticate: createAuthenticator(app, {
      realm: 'main',
      schemes: ['IdToken', 'Bearer', 'ServiceKeyHash'],
      graceSeconds: 0,
    }),
    authenticateUser: createAuthenticator(app, {
      realm: 'main',
      schemes: ['IdToken', 'Bearer'],
      graceSeconds: 0,
    }),
  });

  app.get(
    '/.well-known/jwks.json',
    { schema: jwksSchema, config: { access: 'public' } },
    async () => jwks,
  );

  app.route({
    method: ['GET', 'POST'],
    url: '/authz/.jwt',
    schema: authzSchema,
    config: { access: 'caller' },
    handler: (request, reply) => {
      return sendLeaseTokens(request, reply, prefix, {
        subject: request.caller!.sub,
        now: now(),
        signer,
        signingPool: app.signingPool,
        ...(isLicensed ? { isLicensed } : {}),
      });
    },
  });

  app.post<{ Body: CheckoutLine[] }>(
    '/licensing/actions/checkout',
    {
      schema: checkoutSchema(app.config.limits.maxItemsPerRequest),
      // ID tokens only; checked before the body is read, so an anonymous caller gets 401.
      config: { access: 'user' },
    },
    async (request): Promise<CheckoutResult[]> => {
      const caller = request.caller!;
      const issuer = serviceBaseUrl(request, prefix);
      // One signing task per granted line, so a long checkout spreads over the threads.
      const lines = request.body.map(async ({ productName }): Promise<CheckoutResult> => {
        if (isLicensed && !isLicensed(productName)) {
          return {
            productName,
            granted: false,
            errorCode: 'noLicenseFound',
            errorDescription: `No license found for ${productName}`,
          };
        }
        const jwt = await issueLeaseTokens(
          { items: [{ name: productName }], release: undefined, echo: {} },
          { issuer, subject: caller.sub, now: now(), signer, signingPool: app.signingPool },
        );
        return { productName, granted: true, jwt };
      });
      return Promise.all(lines);
    },
  );
}
