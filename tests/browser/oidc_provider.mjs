// A real OpenID Connect provider for the browser suite: oidc-provider (pinned in package.json) on
// 127.0.0.1 with one confidential client, the console, whose redirect URI is given. Its signing
// key is made here; the public half is written as a JWKS file for the API (PAYRAIL_IDP_JWKS_FILE).
// Sign-in uses the package's development interactions: any login and password, then consent.
//
//   node oidc_provider.mjs <port> <redirect uri> <client secret> <jwks file to write>
import { generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import Provider from 'oidc-provider';

const [port, redirectUri, clientSecret, jwksFile] = process.argv.slice(2);
const issuer = `http://127.0.0.1:${port}`;
const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const signingKey = { ...privateKey.export({ format: 'jwk' }), kid: 'browser-suite', use: 'sig', alg: 'RS256' };
const { kty, n, e, kid, use, alg } = signingKey;
writeFileSync(jwksFile, JSON.stringify({ keys: [{ kty, n, e, kid, use, alg }] }));

const provider = new Provider(issuer, {
  clients: [{
    client_id: 'payrail-console',
    client_secret: clientSecret,
    redirect_uris: [redirectUri],
    grant_types: ['authorization_code'],
    response_types: ['code'],
    token_endpoint_auth_method: 'client_secret_basic',
  }],
  jwks: { keys: [signingKey] },
  claims: { openid: ['sub'], email: ['email', 'email_verified'] },
  // The ID token carries the e-mail the console needs (not only the userinfo endpoint).
  conformIdTokenClaims: false,
  findAccount: async (ctx, id) => ({
    accountId: id,
    claims: async () => ({ sub: id, email: `${id}@example.com`, email_verified: true }),
  }),
  cookies: { keys: ['payrail-browser-suite-cookie-key'] },
  features: { devInteractions: { enabled: true } },
});
provider.listen(Number(port), '127.0.0.1', () => {
  console.log(`oidc-provider ready at ${issuer}`);
});
