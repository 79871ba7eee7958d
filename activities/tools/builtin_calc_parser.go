package tools

import (
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"
)

// maxCalcDepth bounds parser recursion (nested parentheses, unary signs).
const maxCalcDepth = 100

// Grammar (lowest precedence first):
//
//	expr   = term { ("+" | "-") term }
//	term   = unary { ("*" | "/" | "%") unary }
//	unary  = ("-" | "+") unary | power
//	power  = primary [ "^" unary ]        right-associative; -2^2 = -4
//	primary = number | "(" expr ")"
type calcParser struct {
	src   string
	pos   int
	depth int
}

func evaluate(src string) (float64, error) {
	p := &calcParser{src: src}
	v, err := p.expr()
	if err != nil {
		return 0, err
	}
	if p.skipSpace(); p.pos < len(p.src) {
		return 0, p.unexpected()
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("result is not a finite number")
	}
	return v, nil
}

func (p *calcParser) expr() (float64, error) {
	v, err := p.term()
	for err == nil {
		op := p.peek()
		if op != '+' && op != '-' {
			break
		}
		p.pos++
		var rhs float64
		if rhs, err = p.term(); err == nil {
			v = applyAdd(op, v, rhs)
		}
	}
	return v, err
}

func (p *calcParser) term() (float64, error) {
	v, err := p.unary()
	for err == nil {
		op := p.peek()
		if op != '*' && op != '/' && op != '%' {
			break
		}
		at := p.pos
		p.pos++
		var rhs float64
		if rhs, err = p.unary(); err == nil {
			v, err = p.applyMul(op, v, rhs, at)
		}
	}
	return v, err
}

func (p *calcParser) unary() (float64, error) {
	if p.depth++; p.depth > maxCalcDepth {
		return 0, p.errorf("expression nested too deeply")
	}
	defer func() { p.depth-- }()
	switch p.peek() {
	case '-':
		p.pos++
		v, err := p.unary()
		return -v, err
	case '+':
		p.pos++
		return p.unary()
	}
	return p.power()
}

func (p *calcParser) power() (float64, error) {
	base, err := p.primary()
	if err != nil || p.peek() != '^' {
		return base, err
	}
	p.pos++
	exp, err := p.unary()
	return math.Pow(base, exp), err
}

func (p *calcParser) primary() (float64, error) {
	c := p.peek()
	switch {
	case c == '(':
		p.pos++
		v, err := p.expr()
		if err != nil {
			return 0, err
		}
		if p.peek() != ')' {
			return 0, p.errorf("expected ')'")
		}
		p.pos++
		return v, nil
	case c == '.' || isDigit(c):
		return p.number()
	case c == 0:
		return 0, p.errorf("unexpected end of expression")
	}
	return 0, p.unexpected()
}

func (p *calcParser) unexpected() error {
	r, _ := utf8.DecodeRuneInString(p.src[p.pos:])
	return p.errorf("unexpected %q", r)
}

// number scans digits with an optional fraction and exponent.
func (p *calcParser) number() (float64, error) {
	start := p.pos
	p.digits()
	if p.pos < len(p.src) && p.src[p.pos] == '.' {
		p.pos++
		p.digits()
	}
	if p.pos < len(p.src) && (p.src[p.pos] == 'e' || p.src[p.pos] == 'E') {
		p.pos++
		if p.pos < len(p.src) && (p.src[p.pos] == '+' || p.src[p.pos] == '-') {
			p.pos++
		}
		p.digits()
	}
	text := p.src[start:p.pos]
	v, err := strconv.ParseFloat(text, 64)
	if err != nil {
		p.pos = start
		return 0, p.errorf("invalid number %q", text)
	}
	return v, nil
}

func (p *calcParser) digits() {
	for p.pos < len(p.src) && isDigit(p.src[p.pos]) {
		p.pos++
	}
}

// peek skips spaces and returns the next byte, or 0 at the end.
func (p *calcParser) peek() byte {
	p.skipSpace()
	if p.pos >= len(p.src) {
		return 0
	}
	return p.src[p.pos]
}

func (p *calcParser) skipSpace() {
	for p.pos < len(p.src) && (p.src[p.pos] == ' ' || p.src[p.pos] == '\t' || p.src[p.pos] == '\n') {
		p.pos++
	}
}

func (p *calcParser) errorf(format string, args ...any) error {
	return fmt.Errorf("cannot evaluate %q: %s at position %d", p.src, fmt.Sprintf(format, args...), p.pos+1)
}

func applyAdd(op byte, a, b float64) float64 {
	if op == '+' {
		return a + b
	}
	return a - b
}

func (p *calcParser) applyMul(op byte, a, b float64, at int) (float64, error) {
	switch {
	case op == '*':
		return a * b, nil
	case b == 0:
		p.pos = at
		return 0, p.errorf("division by zero")
	case op == '/':
		return a / b, nil
	}
	return math.Mod(a, b), nil
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
