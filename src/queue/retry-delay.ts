/**
 * `Upstash-Retry-Delay`: a per-message arithmetic expression giving the delay before a retry, in
 * milliseconds, as the hosted queue documents it: numbers, the variable `retried` (how many
 * times the message was retried before this failure: 0 when the first attempt failed), `+ - * /`,
 * parentheses, unary minus, and the functions `pow`, `sqrt`, `abs`, `exp`, `floor`, `ceil`,
 * `round`, `min`, `max`. It is parsed when the message is published, so a bad expression is a 400
 * then, not a silent fallback later.
 */

/** A parsed expression: evaluates for a value of `retried`. */
export type RetryDelay = (retried: number) => number

const FUNCTIONS: Readonly<Record<string, { readonly arity: number; readonly apply: (...args: number[]) => number }>> = {
  pow: { arity: 2, apply: (base, exponent) => base ** exponent },
  sqrt: { arity: 1, apply: Math.sqrt },
  abs: { arity: 1, apply: Math.abs },
  exp: { arity: 1, apply: Math.exp },
  floor: { arity: 1, apply: Math.floor },
  ceil: { arity: 1, apply: Math.ceil },
  round: { arity: 1, apply: Math.round },
  min: { arity: 2, apply: Math.min },
  max: { arity: 2, apply: Math.max },
}

type Token = { readonly kind: 'number'; readonly value: number } | { readonly kind: 'name'; readonly value: string } | { readonly kind: 'symbol'; readonly value: string }

export class RetryDelayError extends Error {}

function tokenize(source: string): Token[] {
  const tokens: Token[] = []
  const pattern = /\s*(?:(\d+(?:\.\d+)?|\.\d+)|([A-Za-z_][A-Za-z0-9_]*)|([-+*/(),]))/y
  let index = 0
  while (index < source.length) {
    if (/^\s*$/.test(source.slice(index))) break
    pattern.lastIndex = index
    const match = pattern.exec(source)
    if (!match) throw new RetryDelayError(`unexpected character ${JSON.stringify(source.slice(index).trim()[0])} at ${index}`)
    if (match[1] !== undefined) tokens.push({ kind: 'number', value: Number(match[1]) })
    else if (match[2] !== undefined) tokens.push({ kind: 'name', value: match[2] })
    else tokens.push({ kind: 'symbol', value: match[3] })
    index = pattern.lastIndex
  }
  return tokens
}

/** Recursive descent: expression := term (('+'|'-') term)*, term := unary (('*'|'/') unary)*. */
class Parser {
  private position = 0
  constructor(private readonly tokens: Token[]) {}

  parse(): RetryDelay {
    if (this.tokens.length === 0) throw new RetryDelayError('empty expression')
    const expression = this.expression()
    if (this.position < this.tokens.length) throw new RetryDelayError(`unexpected ${JSON.stringify(this.tokens[this.position].value)}`)
    return expression
  }

  private peek(symbol: string): boolean {
    const token = this.tokens[this.position]
    return token?.kind === 'symbol' && token.value === symbol
  }

  private expect(symbol: string): void {
    if (!this.peek(symbol)) throw new RetryDelayError(`expected ${JSON.stringify(symbol)}`)
    this.position++
  }

  private expression(): RetryDelay {
    let left = this.term()
    while (this.peek('+') || this.peek('-')) {
      const plus = this.tokens[this.position++].value === '+'
      const right = this.term()
      const before = left
      left = plus ? (r) => before(r) + right(r) : (r) => before(r) - right(r)
    }
    return left
  }

  private term(): RetryDelay {
    let left = this.unary()
    while (this.peek('*') || this.peek('/')) {
      const times = this.tokens[this.position++].value === '*'
      const right = this.unary()
      const before = left
      left = times ? (r) => before(r) * right(r) : (r) => before(r) / right(r)
    }
    return left
  }

  private unary(): RetryDelay {
    if (this.peek('-')) {
      this.position++
      const operand = this.unary()
      return (r) => -operand(r)
    }
    if (this.peek('+')) {
      this.position++
      return this.unary()
    }
    return this.primary()
  }

  private primary(): RetryDelay {
    const token = this.tokens[this.position++]
    if (token === undefined) throw new RetryDelayError('unexpected end of expression')
    if (token.kind === 'number') return () => token.value
    if (token.kind === 'symbol') {
      if (token.value !== '(') throw new RetryDelayError(`unexpected ${JSON.stringify(token.value)}`)
      const inner = this.expression()
      this.expect(')')
      return inner
    }
    if (token.value === 'retried') return (r) => r
    const fn = FUNCTIONS[token.value]
    if (!fn) throw new RetryDelayError(`unknown name ${JSON.stringify(token.value)} (use retried, ${Object.keys(FUNCTIONS).join(', ')})`)
    this.expect('(')
    const args: RetryDelay[] = [this.expression()]
    while (this.peek(',')) {
      this.position++
      args.push(this.expression())
    }
    this.expect(')')
    if (args.length !== fn.arity) throw new RetryDelayError(`${token.value} takes ${fn.arity} argument${fn.arity === 1 ? '' : 's'}, got ${args.length}`)
    return (r) => fn.apply(...args.map((arg) => arg(r)))
  }
}

/** Parses a retry-delay expression; throws {@link RetryDelayError} with the reason. */
export function parseRetryDelay(source: string): RetryDelay {
  return new Parser(tokenize(source)).parse()
}

/** The delay in ms for `retried`, clamped to [0, 1 day] (a division by zero gives the day; NaN, as from sqrt(-1), gives 0). */
export function retryDelayMs(source: string, retried: number): number {
  const value = parseRetryDelay(source)(retried)
  if (Number.isNaN(value)) return 0
  return Math.min(86_400_000, Math.max(0, Math.round(value)))
}

/** The hosted queue's backoff: min(86400, e^(2.5·n)) seconds before retry n (1-based), in ms. */
export function hostedBackoff(retry: number): number {
  return Math.round(Math.min(86_400, Math.exp(2.5 * retry)) * 1000)
}
