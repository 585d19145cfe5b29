/**
 * Tokens and permissions.
 * @packageDocumentation
 */
export { TokenStore, generateToken } from './tokens.js'
export type { Principal, Authenticator, TokenStoreOptions } from './tokens.js'
export { checkPermission, noPermission } from './permissions.js'
