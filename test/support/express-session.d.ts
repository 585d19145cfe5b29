/**
 * express-session ships no type declarations, and the project adds no `@types` package for a
 * test-only dependency: the tests use it untyped.
 */
declare module 'express-session'
