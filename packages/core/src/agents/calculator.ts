import { InvalidInputError } from '../errors/invalid-input-error.ts';

const MAX_LENGTH = 500;
const MAX_DEPTH = 64;
const TOKEN = /\s*(?:(\d+(?:\.\d+)?(?:e[+-]?\d+)?|\.\d+)|([-+*/%^()]))/iy;

function tokenize(expression: string): string[] {
  const tokens: string[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < expression.length) {
    const start = TOKEN.lastIndex;
    const match = TOKEN.exec(expression);
    if (match === null) {
      if (expression.slice(start).trim() === '') break;
      throw new InvalidInputError(`Unexpected character at position ${start + 1}`, {
        field: 'expression',
      });
    }
    tokens.push((match[1] ?? match[2]) as string);
  }
  return tokens;
}

/**
 * Evaluates an arithmetic expression (+ - * / % ^, parentheses, unary minus) with a recursive
 * descent parser; never uses eval. Throws InvalidInputError on malformed input or division by zero.
 */
export function evaluateExpression(expression: string): number {
  if (expression.length > MAX_LENGTH) {
    throw new InvalidInputError(`Expression longer than ${MAX_LENGTH} characters`, {
      field: 'expression',
    });
  }
  const tokens = tokenize(expression);
  let position = 0;
  const peek = () => tokens[position];
  const fail = (message: string): never => {
    throw new InvalidInputError(message, { field: 'expression' });
  };

  function expect(token: string): void {
    if (tokens[position] !== token) fail(`Expected '${token}'`);
    position += 1;
  }

  function primary(depth: number): number {
    if (depth > MAX_DEPTH) fail('Expression nested too deeply');
    const token = peek();
    if (token === undefined) return fail('Unexpected end of expression');
    if (token === '(') {
      position += 1;
      const value = sum(depth + 1);
      expect(')');
      return value;
    }
    if (token === '-' || token === '+') {
      position += 1;
      const value = power(depth + 1);
      return token === '-' ? -value : value;
    }
    if (/^[\d.]/.test(token)) {
      position += 1;
      return Number(token);
    }
    return fail(`Unexpected '${token}'`);
  }

  function power(depth: number): number {
    const base = primary(depth);
    if (peek() !== '^') return base;
    position += 1;
    return base ** power(depth + 1);
  }

  function product(depth: number): number {
    let value = power(depth);
    for (
      let operator = peek();
      operator === '*' || operator === '/' || operator === '%';
      operator = peek()
    ) {
      position += 1;
      const right = power(depth);
      if (operator !== '*' && right === 0) fail('Division by zero');
      value = operator === '*' ? value * right : operator === '/' ? value / right : value % right;
    }
    return value;
  }

  function sum(depth: number): number {
    let value = product(depth);
    for (let operator = peek(); operator === '+' || operator === '-'; operator = peek()) {
      position += 1;
      const right = product(depth);
      value = operator === '+' ? value + right : value - right;
    }
    return value;
  }

  if (tokens.length === 0) fail('Empty expression');
  const result = sum(0);
  if (position < tokens.length) fail(`Unexpected '${tokens[position]}'`);
  if (!Number.isFinite(result)) fail('The result is not a finite number');
  return result;
}
