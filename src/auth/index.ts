/**
 * Tokens, permissions and limits of the REST gateway.
 *
 * - {@link TokenStore}: the standard and read-only tokens, and ACL users' tokens issued by
 *   `ACL RESTTOKEN` (derived from the user's password, revoked when it changes).
 * - {@link checkPermission}: the read-only token's rules, from the command table;
 *   {@link provisionReadonlyUser} makes the backend enforce them too.
 * - {@link Limits}: maximum command and body size, daily request limit, usage counters.
 *
 * @packageDocumentation
 */
export { TokenStore, generateToken, principalId } from './tokens.js'
export type { Principal, Authenticator, TokenStoreOptions, UserTokenEntry } from './tokens.js'
export { checkPermission, noPermission, readOnlyTokenMay, readOnlyCommands, readOnlyAclRules, provisionReadonlyUser } from './permissions.js'
export { Limits } from './limits.js'
export type { LimitOptions, UsageEvent, UsageTotals, Endpoint } from './limits.js'
