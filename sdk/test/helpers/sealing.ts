// Test helper: a real seal for the persistent lease stores (an HMAC, as an app would key from
// its OS keychain).
import { createHmac, timingSafeEqual } from 'node:crypto';

/** An HMAC seal: `<mac>.<text>`; unseal throws unless the MAC matches. */
export function hmacSealing(secret: string) {
  const mac = (text: string) => createHmac('sha256', secret).update(text).digest('base64url');
  return {
    seal: (text: string) => `${mac(text)}.${text}`,
    unseal: (sealed: string) => {
      const dot = sealed.indexOf('.');
      const [given, text] = [sealed.slice(0, dot), sealed.slice(dot + 1)];
      const expected = Buffer.from(mac(text));
      if (
        dot < 0 ||
        given.length !== expected.length ||
        !timingSafeEqual(Buffer.from(given), expected)
      ) {
        throw new Error('bad seal');
      }
      return text;
    },
  };
}
