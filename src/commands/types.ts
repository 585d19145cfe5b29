/**
 * Shapes of the generated command data (`table.ts`, `docs.ts`). Hand-written; the generator
 * (`scripts/gen-command-table.mjs`) emits values of these types.
 *
 */

/**
 * Where a key spec starts looking for keys, as in the `begin_search` of `COMMAND INFO`:
 * - a number: `index` at that argument position;
 * - `[keyword, startfrom]`: `keyword` — search for that keyword starting at `startfrom`
 *   (negative: from the end, backwards);
 * - `null`: `unknown`.
 * @public
 */
export type RawBeginSearch = number | readonly [keyword: string, startFrom: number] | null

/**
 * How a key spec finds keys once it started, as in the `find_keys` of `COMMAND INFO`:
 * - `['r', lastkey, keystep, limit]`: `range`;
 * - `['n', keynumidx, firstkey, keystep]`: `keynum`;
 * - `null`: `unknown`.
 * @public
 */
export type RawFindKeys =
  | readonly ['r', lastKey: number, keyStep: number, limit: number]
  | readonly ['n', keyNumIdx: number, firstKey: number, keyStep: number]
  | null

/**
 * One key spec: flags space-separated in Redis's order (`"RW access update"`), begin search,
 * find keys, and the optional `notes` text.
 * @public
 */
export type RawKeySpec = readonly [flags: string, beginSearch: RawBeginSearch, findKeys: RawFindKeys, notes?: string]

/**
 * Extra data derived by the generator.
 * - `block`: for commands flagged `blocking` that only block when an optional token is given
 *   (`XREAD … BLOCK ms …`): the token, the keyword that ends the options, and the number of
 *   values each option token takes (from the `COMMAND DOCS` argument list).
 * - `hidden_flags`: flags the server has but does not show (`CommandInfo.hiddenFlags` in `lookup.ts`).
 * @public
 */
export interface RawExtra {
  readonly block?: readonly [token: string, stop: string, options: Readonly<Record<string, number>>]
  /**
   * Flags Redis keeps out of `COMMAND INFO`, space-separated (`may_replicate`), from the
   * overlay's `hidden_flags`.
   */
  readonly hidden_flags?: string
}

/**
 * One command or subcommand (`parent|sub`) of the generated table. Subcommand rows follow their
 * parent. Flags, ACL categories and tips are space-separated, in the order Redis writes them.
 * @public
 */
export type CommandRow = readonly [
  name: string,
  arity: number,
  flags: string,
  categories: string,
  firstKey: number,
  lastKey: number,
  step: number,
  group: string,
  since: string,
  keySpecs: readonly RawKeySpec[],
  tips?: string,
  extra?: RawExtra,
]

/**
 * One argument in `COMMAND DOCS`, keys named and ordered as Redis writes them.
 * @public
 */
export interface ArgumentDocs {
  readonly name: string
  readonly type: string
  readonly display_text?: string
  readonly key_spec_index?: number
  readonly token?: string
  readonly summary?: string
  readonly since?: string
  readonly flags?: readonly string[]
  readonly deprecated_since?: string
  readonly arguments?: readonly ArgumentDocs[]
}

/**
 * The `COMMAND DOCS` map of one command, keys named and ordered as Redis writes them.
 * Subcommands are keyed by their full name (`config|get`).
 * @public
 */
export interface CommandDocs {
  readonly summary?: string
  readonly since?: string
  readonly group: string
  readonly complexity?: string
  readonly module?: string
  readonly doc_flags?: readonly string[]
  readonly deprecated_since?: string
  readonly replaced_by?: string
  readonly history?: readonly (readonly [version: string, description: string])[]
  readonly arguments?: readonly ArgumentDocs[]
  readonly subcommands?: Readonly<Record<string, CommandDocs>>
}
