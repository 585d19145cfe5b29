/**
 * Tokens, permissions and limits of the REST gateway.
 *
 * - {@link TokenStore}: the standard and read-only tokens, and ACL users' tokens issued by
 *   `ACL RESTTOKEN` (derived from the user's password, revoked when it changes).
 * - {@link readOnlyCommands} and {@link readOnlyAclRules}: what the read-only token may run, from
 *   the command table; {@link provisionReadonlyUser} makes the backend enforce it too.
 * - {@link Limits}: maximum command and body size, daily request limit, usage counters.
 *
 * @packageDocumentation
 */
export { TokenStore, generateToken } from './tokens.js'
export type { Principal, Authenticator, TokenStoreOptions, UserTokenEntry } from './tokens.js'
export { readOnlyCommands, readOnlyAclRules, provisionReadonlyUser } from './permissions.js'
export { Limits } from './limits.js'
export type { LimitOptions, UsageEvent, UsageTotals, Endpoint } from './limits.js'
export * from '../entries/executor-surface.js'
