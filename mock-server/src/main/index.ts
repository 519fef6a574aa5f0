import type { FastifyInstance } from 'fastify';
import { installAuthHook } from '../auth/auth-hook.js';
import { createAuthenticator } from '../auth/authenticate.js';
import { ID_TOKEN_GRACE_SECONDS } from '../auth/id-token-grace.js';
import { toX5c } from '../crypto/certificates.js';
import { defer } from '../crypto/deferred-keys.js';
import { toPublicJwk } from '../crypto/jwk.js';
import { issueLeaseTokens } from '../licensing/issue-lease-tokens.js';
import type { ItemDecision } from '../licensing/lease-claims.js';
import { installLicensingSummary } from '../licensing/licensing-summary.js';
import { type AuthzItem, parseEchoParameters } from '../licensing/parse-authz-request.js';
import { addFormBodyParser, serviceBaseUrl } from '../licensing/request-parameters.js';
import { sendLeaseClaims } from '../licensing/send-lease-claims.js';
import { sendLeaseTokens } from '../licensing/send-lease-tokens.js';
import { loadMainCertificates } from './main-certificates.js';
import { authzJsonSchema, authzSchema, checkoutSchema, jwksSchema } from './schemas.js';

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
 * The mock main licensing service, mounted at `/main`: `/authz/.jwt` and its JSON form
 * `/authz/.json` against the catalogue (`config.items`, `*` = every item) and the callers'
 * provisioned licenses (`app.licenseBook`), `POST /licensing/actions/checkout`, and a public JWKS
 * of the main deployment key with its `x5c` chain. ID tokens must be unexpired here (no grace).
 */
export async function mainService(app: FastifyInstance): Promise<void> {
  const now = () => app.clock.now();
  const chain = await loadMainCertificates(app.store, {
    storedKey: app.keyring.peek('main'),
    key: () => app.keyring.get('main'),
    now,
  });
  // The key's public JWK with its chain: loaded now from the data dir, else made on first use
  // (or right after the server listens), so key generation stays off the start path.
  const jwks = defer(async () => {
    const [signer, made] = await Promise.all([app.keyring.get('main'), chain.get()]);
    return { keys: [toPublicJwk(signer, toX5c(made))] };
  });
  app.deferredKeys.add(jwks);
  const signerNow = async () => app.keyring.peek('main') ?? (await app.keyring.get('main'));
  const catalogue = app.config.items;
  const everyItem = catalogue.has('*');
  const book = app.licenseBook;
  const prefix = app.prefix;
  // An item is granted from the caller's live license (its id becomes `lic`), else from the
  // catalogue, else denied (docs/mock-server.md "Main provisioning and its events").
  const decideFor =
    (sub: string) =>
    (item: AuthzItem): ItemDecision => {
      const license = book.liveLicense(sub, item.name, item.licenseId);
      if (license) return { granted: true, licenseId: license.licenseId };
      return { granted: everyItem || catalogue.has(item.name) };
    };

  // Its key and chain are permanent; licenses and blocked codes go (their outbox stays).
  app.resets.set('main', () => book.reset());
  addFormBodyParser(app);
  installLicensingSummary(app);
  installAuthHook(app, {
    authenticate: createAuthenticator(app, {
      realm: 'main',
      schemes: ['IdToken', 'Bearer', 'ServiceKeyHash'],
      graceSeconds: ID_TOKEN_GRACE_SECONDS.main,
    }),
    authenticateUser: createAuthenticator(app, {
      realm: 'main',
      schemes: ['IdToken', 'Bearer'],
      graceSeconds: ID_TOKEN_GRACE_SECONDS.main,
    }),
  });

  app.get(
    '/.well-known/jwks.json',
    { schema: jwksSchema, config: { access: 'public' } },
    async () => jwks.value ?? (await jwks.get()),
  );

  app.route({
    method: ['GET', 'POST'],
    url: '/authz/.jwt',
    schema: authzSchema,
    config: { access: 'caller' },
    handler: async (request, reply) => {
      const subject = request.caller!.sub;
      return sendLeaseTokens(request, reply, prefix, {
        subject,
        now: now(),
        signer: await signerNow(),
        signingPool: app.signingPool,
        decide: decideFor(subject),
      });
    },
  });

  // The JSON form that vendor web clients release through: one item's claims, unsigned.
  app.route({
    method: ['GET', 'POST'],
    url: '/authz/.json',
    schema: authzJsonSchema,
    config: { access: 'caller' },
    handler: (request, reply) => {
      const subject = request.caller!.sub;
      return sendLeaseClaims(request, reply, prefix, {
        subject,
        now: now(),
        decide: decideFor(subject),
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
      const signer = await signerNow();
      const decide = decideFor(caller.sub);
      // `hw`, `process` and `version` in the query are echoed into every token, as on /authz.
      const echo = parseEchoParameters(request.query as Record<string, string | undefined>);
      // One signing task per granted line, so a long checkout spreads over the threads.
      const lines = request.body.map(async ({ productName }): Promise<CheckoutResult> => {
        const item = { name: productName };
        const decision = decide(item);
        if (!decision.granted) {
          return {
            productName,
            granted: false,
            errorCode: 'noLicenseFound',
            errorDescription: `No license found for ${productName}`,
          };
        }
        const jwt = await issueLeaseTokens(
          { items: [item], release: undefined, echo },
          {
            issuer,
            subject: caller.sub,
            now: now(),
            signer,
            signingPool: app.signingPool,
            decide: () => decision,
          },
        );
        return { productName, granted: true, jwt };
      });
      const results = await Promise.all(lines);
      const granted = results.filter((line) => line.granted).length;
      request.licensing = { kind: 'consume', items: results.length, granted, renewed: 0 };
      return results;
    },
  );
}
