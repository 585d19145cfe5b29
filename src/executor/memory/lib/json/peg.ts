/**
 * A small PEG interpreter with the semantics of pest, the parser generator RedisJSON's JSONPath
 * grammar is written for, so that paths are accepted, tokenized and *rejected* exactly as
 * RedisJSON does, down to the position and the "expected one of" list of its error message:
 *
 * - in non-atomic rules `a ~ b` and repetitions skip implicit whitespace (`WHITESPACE`, here a
 *   space) between their parts; atomic rules (`@{}`) skip nothing and their inner rules produce
 *   no tokens and are not reported;
 * - silent rules (`_{}`) produce no token and are never reported;
 * - on failure a rule is reported at the position where it started, only if that position is the
 *   furthest any reported rule started at; a rule whose children made exactly one report there
 *   leaves that report, one whose children made several replaces them with itself (pest's
 *   `ParserState::track`);
 * - the final list is sorted in rule declaration order and deduplicated.
 */

export type Expr =
  | { readonly op: 'text'; readonly text: string }
  | { readonly op: 'class'; readonly test: (code: number) => boolean }
  | { readonly op: 'any' }
  | { readonly op: 'seq'; readonly items: readonly Expr[] }
  | { readonly op: 'choice'; readonly items: readonly Expr[] }
  | { readonly op: 'optional'; readonly item: Expr }
  | { readonly op: 'repeat'; readonly item: Expr; readonly min: 0 | 1 }
  | { readonly op: 'not'; readonly item: Expr }
  | { readonly op: 'rule'; readonly name: string }
  | { readonly op: 'end' }

export type RuleKind = 'normal' | 'silent' | 'atomic'

export interface RuleDefinition {
  readonly kind: RuleKind
  readonly expr: Expr
}

/** A token: a non-silent rule that matched, with the tokens of the rules inside it. */
export interface ParseNode {
  readonly rule: string
  readonly start: number
  readonly end: number
  readonly children: readonly ParseNode[]
}

export type ParseOutcome =
  | { readonly ok: true; readonly nodes: readonly ParseNode[] }
  | { readonly ok: false; readonly position: number; readonly expected: readonly string[] }

export const text = (value: string): Expr => ({ op: 'text', text: value })
export const charClass = (test: (code: number) => boolean): Expr => ({ op: 'class', test })
export const anyChar: Expr = { op: 'any' }
export const seq = (...items: Expr[]): Expr => ({ op: 'seq', items })
export const choice = (...items: Expr[]): Expr => ({ op: 'choice', items })
export const optional = (item: Expr): Expr => ({ op: 'optional', item })
export const zeroOrMore = (item: Expr): Expr => ({ op: 'repeat', item, min: 0 })
export const oneOrMore = (item: Expr): Expr => ({ op: 'repeat', item, min: 1 })
export const notAhead = (item: Expr): Expr => ({ op: 'not', item })
export const ref = (name: string): Expr => ({ op: 'rule', name })
/** pest's built-in `EOI` rule. */
export const END_OF_INPUT = 'EOI'

/** A grammar: its rules in declaration order (the order error lists are sorted in). */
export class Grammar {
  private readonly order = new Map<string, number>()

  constructor(private readonly rules: ReadonlyMap<string, RuleDefinition>) {
    this.order.set(END_OF_INPUT, -1) // pest declares EOI first
    let index = 0
    for (const name of rules.keys()) this.order.set(name, index++)
  }

  rule(name: string): RuleDefinition {
    const rule = this.rules.get(name)
    if (rule === undefined) throw new Error(`unknown grammar rule ${name}`)
    return rule
  }

  /** Parses `input` with `entry` (a silent start rule, as pest's `parse(Rule::x, …)` does). */
  parse(entry: Expr, input: string): ParseOutcome {
    const matcher = new Matcher(this, input)
    const nodes: ParseNode[] = []
    if (matcher.match(entry, 0, nodes) !== -1) return { ok: true, nodes }
    const expected = [...new Set(matcher.attempts)].sort((a, b) => this.order.get(a)! - this.order.get(b)!)
    return { ok: false, position: matcher.attemptPosition, expected }
  }
}

const SPACE = 32
const END_RULE: RuleDefinition = { kind: 'normal', expr: { op: 'end' } }

class Matcher {
  attemptPosition = 0
  attempts: string[] = []
  private atomic = false

  constructor(
    private readonly grammar: Grammar,
    private readonly input: string,
  ) {}

  /** Matches `expr` at `pos`; the end position, or -1. Tokens go to `out` only on success. */
  match(expr: Expr, pos: number, out: ParseNode[]): number {
    switch (expr.op) {
      case 'text':
        return this.input.startsWith(expr.text, pos) ? pos + expr.text.length : -1
      case 'class':
        return pos < this.input.length && expr.test(this.input.charCodeAt(pos)) ? pos + 1 : -1
      case 'any':
        return pos < this.input.length ? pos + 1 : -1
      case 'end':
        return pos === this.input.length ? pos : -1
      case 'seq': {
        const mark = out.length
        let at = pos
        for (let i = 0; i < expr.items.length; i++) {
          if (i > 0) at = this.skip(at)
          at = this.match(expr.items[i], at, out)
          if (at === -1) {
            out.length = mark
            return -1
          }
        }
        return at
      }
      case 'choice':
        for (const item of expr.items) {
          const end = this.match(item, pos, out)
          if (end !== -1) return end
        }
        return -1
      case 'optional': {
        const end = this.match(expr.item, pos, out)
        return end === -1 ? pos : end
      }
      case 'repeat': {
        let at = this.match(expr.item, pos, out)
        if (at === -1) return expr.min === 0 ? pos : -1
        for (;;) {
          const mark = out.length
          const next = this.match(expr.item, this.skip(at), out)
          if (next === -1 || next === at) {
            out.length = mark
            return at
          }
          at = next
        }
      }
      case 'not':
        return this.match(expr.item, pos, []) === -1 ? pos : -1
      case 'rule':
        return this.rule(expr.name, pos, out)
    }
  }

  private rule(name: string, pos: number, out: ParseNode[]): number {
    const definition = name === END_OF_INPUT ? END_RULE : this.grammar.rule(name)
    if (definition.kind === 'silent') return this.match(definition.expr, pos, out)
    const attemptIndex = pos === this.attemptPosition ? this.attempts.length : 0
    const outerAtomic = this.atomic
    const children: ParseNode[] = []
    if (definition.kind === 'atomic') this.atomic = true
    const end = this.match(definition.expr, pos, children)
    this.atomic = outerAtomic
    if (end === -1) {
      if (!outerAtomic) this.track(name, pos, attemptIndex)
      return -1
    }
    if (!outerAtomic) out.push({ rule: name, start: pos, end, children })
    return end
  }

  /** pest's `ParserState::track` for a rule that failed, having started at `pos`. */
  private track(name: string, pos: number, attemptIndex: number): void {
    const before = attemptIndex
    const now = pos === this.attemptPosition ? this.attempts.length : 0
    if (now > before && now - before === 1) return // the one child report stands for this rule
    if (pos === this.attemptPosition) this.attempts.length = attemptIndex
    if (pos > this.attemptPosition) {
      this.attempts = []
      this.attemptPosition = pos
    }
    if (pos === this.attemptPosition) this.attempts.push(name)
  }

  /** Implicit whitespace between the parts of non-atomic rules. */
  private skip(pos: number): number {
    if (this.atomic) return pos
    while (this.input.charCodeAt(pos) === SPACE) pos++
    return pos
  }
}
