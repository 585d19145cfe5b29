import {
  END_OF_INPUT,
  Grammar,
  anyChar,
  charClass,
  choice,
  notAhead,
  oneOrMore,
  optional,
  ref,
  seq,
  text,
  zeroOrMore,
  type Expr,
  type ParseNode,
  type RuleDefinition,
  type RuleKind,
} from './peg.js'

/**
 * RedisJSON 2.x's JSONPath grammar (`grammer.pest`, rule for rule and in its order), with two
 * additions of RedisJSON 8 that only turn former syntax errors into valid filters: the `null`
 * literal and the `!` negation.
 *
 *     literal      = @{ ('a'..'z' | 'A'..'Z' | '0'..'9' | "-" | "_" | "`" | "~" | "+" | "#" | "%" | "$" | "^" | "/" | ":")+ }
 *     string       = _{ "'" ~ string_value ~ "'" | "\"" ~ string_value ~ "\"" | "\"" ~ string_value_escape_1 ~ "\"" | "'" ~ string_value_escape_2 ~ "'" }
 *     number       = @{ "-"? ~ ASCII_NONZERO_DIGIT ~ ASCII_DIGIT* | "-"? ~ ASCII_DIGIT }
 *     decimal      = @{ number ~ ("." ~ ASCII_DIGIT+)? }
 *     numbers_range = { full_range | right_range | all_range | left_range }
 *     term         = _{ select_term | decimal | string | boolean | null }
 *     single_filter = { term ~ op ~ term | term }
 *     inner_filter = _{ negation | single_filter | "(" ~ filter ~ ")" }
 *     filter       = { inner_filter ~ (filter_relation ~ inner_filter)* }
 *     bracket      = _{ numbers_range | numbers_list | string_list | all | "?" ~ filter }
 *     element      = _{ "." ~ literal | full_scan ~ (literal | all | "[" ~ bracket ~ "]") | "." ~ all | "."? ~ "[" ~ bracket ~ "]" }
 *     root         = { (element | first_element) ~ element* }
 *     query        = _{ SOI ~ "$" ~ root? ~ EOI }
 *     WHITESPACE   = _{ " " }
 */

const isDigit = (code: number): boolean => code >= 48 && code <= 57
const isNonZeroDigit = (code: number): boolean => code >= 49 && code <= 57
const LITERAL_PUNCTUATION = new Set([...'-_`~+#%$^/:'].map((c) => c.charCodeAt(0)))
const isLiteralChar = (code: number): boolean =>
  (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || isDigit(code) || LITERAL_PUNCTUATION.has(code)

const quoted = (quote: string, body: string): Expr => seq(text(quote), ref(body), text(quote))
const rangeStep = optional(choice(seq(text(':'), ref('pos_number')), text(':')))

const definitions: [string, RuleKind, Expr][] = [
  ['literal', 'atomic', oneOrMore(charClass(isLiteralChar))],
  [
    'string',
    'silent',
    choice(quoted("'", 'string_value'), quoted('"', 'string_value'), quoted('"', 'string_value_escape_1'), quoted("'", 'string_value_escape_2')),
  ],
  ['string_escape', 'atomic', text('\\')],
  ['string_value', 'atomic', zeroOrMore(oneOrMore(seq(notAhead(choice(text('"'), text('\\'), text("'"))), anyChar)))],
  [
    'string_value_escape_1',
    'atomic',
    zeroOrMore(choice(oneOrMore(seq(notAhead(choice(text('"'), text('\\'))), anyChar)), seq(ref('string_escape'), choice(text('"'), text('\\'))))),
  ],
  [
    'string_value_escape_2',
    'atomic',
    zeroOrMore(choice(oneOrMore(seq(notAhead(choice(text("'"), text('\\'))), anyChar)), seq(ref('string_escape'), choice(text("'"), text('\\'))))),
  ],
  ['string_list', 'normal', seq(ref('string'), zeroOrMore(seq(text(','), ref('string'))))],
  ['pos_number', 'atomic', seq(charClass(isNonZeroDigit), zeroOrMore(charClass(isDigit)))],
  [
    'number',
    'atomic',
    choice(
      seq(optional(text('-')), charClass(isNonZeroDigit), zeroOrMore(charClass(isDigit))),
      seq(optional(text('-')), charClass(isDigit)),
    ),
  ],
  ['decimal', 'atomic', seq(ref('number'), optional(seq(text('.'), oneOrMore(charClass(isDigit)))))],
  ['numbers_list', 'normal', seq(ref('number'), zeroOrMore(seq(text(','), ref('number'))))],
  ['numbers_range', 'normal', choice(ref('full_range'), ref('right_range'), ref('all_range'), ref('left_range'))],
  ['right_range', 'normal', seq(text(':'), ref('number'), rangeStep)],
  ['all_range', 'normal', seq(text(':'), rangeStep)],
  ['left_range', 'normal', seq(ref('number'), text(':'), rangeStep)],
  ['full_range', 'normal', seq(ref('number'), text(':'), ref('number'), rangeStep)],
  ['from_current', 'normal', seq(text('@'), optional(ref('root')))],
  ['from_root', 'normal', seq(text('$'), optional(ref('root')))],
  ['select_term', 'silent', choice(ref('from_current'), ref('from_root'))],
  ['op', 'silent', choice(ref('ge'), ref('gt'), ref('le'), ref('lt'), ref('eq'), ref('ne'), ref('re'))],
  ['ge', 'atomic', text('>=')],
  ['gt', 'atomic', text('>')],
  ['le', 'atomic', text('<=')],
  ['lt', 'atomic', text('<')],
  ['eq', 'atomic', text('==')],
  ['ne', 'atomic', text('!=')],
  ['re', 'atomic', text('=~')],
  ['boolean', 'silent', choice(ref('boolean_true'), ref('boolean_false'))],
  ['boolean_true', 'atomic', text('true')],
  ['boolean_false', 'atomic', text('false')],
  ['null', 'atomic', text('null')],
  ['term', 'silent', choice(ref('select_term'), ref('decimal'), ref('string'), ref('boolean'), ref('null'))],
  ['single_filter', 'normal', choice(seq(ref('term'), ref('op'), ref('term')), ref('term'))],
  ['filter_relation', 'silent', choice(ref('and'), ref('or'))],
  ['and', 'normal', text('&&')],
  ['or', 'normal', text('||')],
  ['negation', 'normal', seq(text('!'), ref('inner_filter'))],
  ['inner_filter', 'silent', choice(ref('negation'), ref('single_filter'), seq(text('('), ref('filter'), text(')')))],
  ['filter', 'normal', seq(ref('inner_filter'), zeroOrMore(seq(ref('filter_relation'), ref('inner_filter'))))],
  ['all', 'normal', text('*')],
  ['full_scan', 'normal', text('..')],
  ['bracket', 'silent', choice(ref('numbers_range'), ref('numbers_list'), ref('string_list'), ref('all'), seq(text('?'), ref('filter')))],
  [
    'element',
    'silent',
    choice(
      seq(text('.'), ref('literal')),
      seq(ref('full_scan'), choice(ref('literal'), ref('all'), seq(text('['), ref('bracket'), text(']')))),
      seq(text('.'), ref('all')),
      seq(optional(text('.')), text('['), ref('bracket'), text(']')),
    ),
  ],
  ['first_element', 'silent', choice(ref('literal'), ref('all'))],
  ['root', 'normal', seq(choice(ref('element'), ref('first_element')), zeroOrMore(ref('element')))],
]

const grammar = new Grammar(new Map<string, RuleDefinition>(definitions.map(([name, kind, expr]) => [name, { kind, expr }])))

/** `query = _{ SOI ~ "$" ~ root? ~ EOI }`; the empty text stands for SOI (whitespace may follow it). */
const QUERY = seq(text(''), text('$'), optional(ref('root')), ref(END_OF_INPUT))

/** How RedisJSON names the rules in its error messages (the rest by their Rust names). */
const RULE_NAMES: Readonly<Record<string, string>> = {
  literal: '<string>',
  all: "'*'",
  full_scan: "'..'",
  numbers_list: "'<number>[,<number>,...]'",
  string_list: "'<string>[,<string>,...]'",
  numbers_range: "['start:end:steps']",
  number: "'<number>'",
  filter: "'[?(filter_expression)]'",
}

/** The root's element tokens of a path that parses, or RedisJSON's compilation error text. */
export function parseJsonPath(path: string): readonly ParseNode[] | string {
  const outcome = grammar.parse(QUERY, path)
  if (outcome.ok) {
    const root = outcome.nodes.find((node) => node.rule === 'root')
    return root === undefined ? [] : root.children
  }
  return compilationError(path, outcome.position, outcome.expected)
}

/** RedisJSON's `QueryCompilationError` display. */
function compilationError(path: string, position: number, expected: readonly string[]): string {
  const names = expected.map((rule) => RULE_NAMES[rule] ?? rule).join(', ')
  const message = names === '' ? 'parsing error' : `expected one of the following: ${names}`
  const shown = position === path.length ? `"${path} <<<<----"` : `"${path.slice(0, position)} ---->>>> ${path.slice(position)}"`
  return `Error occurred on position ${position}, ${shown}, ${message}.`
}
