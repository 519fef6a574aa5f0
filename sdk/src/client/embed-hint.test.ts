import { describe, expect, it } from 'vitest';
import { embedHint } from './embed-hint.js';

const urls = { mainUrl: 'https://main.example', standbyUrl: 'https://standby.example' };

describe('embedHint', () => {
  it("names main's JWK set for main's root", () => {
    const hint = embedHint('main', urls);
    expect(hint).toContain("Embed the main service's current root");
    expect(hint).toContain('--jwks-url https://main.example/.well-known/jwks.json');
    expect(hint).not.toContain('standby.example');
  });

  it("names the standby's URL and an ID token for the standby's root", () => {
    const hint = embedHint('standby', urls);
    expect(hint).toContain("Embed the standby service's current root");
    expect(hint).toContain('--standby-url https://standby.example --id-token');
    expect(hint).not.toContain('main.example');
  });
});
