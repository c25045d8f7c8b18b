package canonical

import (
	"math"
	"strconv"
	"strings"
)

// MaxSafeInteger is 2^53−1, the largest integer every IEEE-754 double (and so
// every RFC 8785 reader) holds exactly. Integer literals beyond ±MaxSafeInteger
// are refused (SPEC §3.3).
const MaxSafeInteger = 1<<53 - 1

// Errors for numbers. The sentences name the rule, never the number.
var (
	errNonFinite = rule(ClassNonFiniteNumber,
		"a number is infinite, not-a-number, or too large for an IEEE-754 double",
		"store it as a string (quote it) in the source document, then re-encrypt it with sops")
	errIntPrecision = rule(ClassNumberPrecision,
		"a number with an integral value lies outside ±(2^53−1), where IEEE-754 doubles (and so canonical JSON) cannot hold every integer",
		nextQuoteNumber)
	errDecPrecision = rule(ClassNumberPrecision,
		"a decimal number would change when read as an IEEE-754 double and written back (too many significant digits or out of range)",
		nextQuoteNumber)
)

// decimal is an exact decimal value 0.digits × 10^exp with no leading or
// trailing zeros in digits; zero is digits == "" (and never negative).
type decimal struct {
	neg    bool
	digits string
	exp    int64
}

// maxExpDigits bounds the exponent we parse; larger exponents are only
// reachable for values that are already infinite, zero or refused.
const maxExpDigits = 9

// parseDecimal reads a decimal literal: optional sign, digits with an
// optional '.', optional e/E exponent. It accepts the JSON grammar and the
// looser YAML spellings (leading '+', ".5", "5."). ok is false for anything
// else, including exponents of more than maxExpDigits digits.
func parseDecimal(s string) (d decimal, ok bool) {
	if s == "" {
		return d, false
	}
	switch s[0] {
	case '-':
		d.neg = true
		s = s[1:]
	case '+':
		s = s[1:]
	}
	mant, expStr := s, ""
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mant, expStr = s[:i], s[i+1:]
		if expStr == "" {
			return d, false
		}
	}
	intPart, fracPart := mant, ""
	if i := strings.IndexByte(mant, '.'); i >= 0 {
		intPart, fracPart = mant[:i], mant[i+1:]
	}
	if intPart == "" && fracPart == "" || !allDigits(intPart) || !allDigits(fracPart) {
		return d, false
	}
	digits := intPart + fracPart
	exp := int64(len(intPart))
	// Leading zeros.
	i := 0
	for i < len(digits) && digits[i] == '0' {
		i++
	}
	digits = digits[i:]
	exp -= int64(i)
	digits = strings.TrimRight(digits, "0")
	if digits == "" {
		// Zero, whatever the sign or exponent (if the exponent is well formed).
		if expStr != "" {
			es := strings.TrimLeft(expStr, "+-")
			if es == "" || !allDigits(es) {
				return d, false
			}
		}
		return decimal{}, true
	}
	if expStr != "" {
		eneg := false
		switch expStr[0] {
		case '-':
			eneg = true
			expStr = expStr[1:]
		case '+':
			expStr = expStr[1:]
		}
		if expStr == "" || !allDigits(expStr) {
			return d, false
		}
		expStr = strings.TrimLeft(expStr, "0")
		if len(expStr) > maxExpDigits {
			return d, false
		}
		var e int64
		if expStr != "" {
			e, _ = strconv.ParseInt(expStr, 10, 64)
		}
		if eneg {
			e = -e
		}
		exp += e
	}
	d.digits, d.exp = digits, exp
	return d, true
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// checkNumber applies the number rules of SPEC §3.3 to a number literal
// whose IEEE-754 double value is f:
//   - f must be finite;
//   - an integral value must lie within ±(2^53−1), whatever its spelling
//     (12345678901234567890, 1e20 and 9007199254740992.0 are all refused), so
//     that every accepted number has exactly one canonical spelling and the
//     canonical form is a fixed point;
//   - the literal must denote exactly the value that the shortest round-trip
//     spelling of f denotes. Spelling-only differences (1.0, 1e2, -0) pass.
func checkNumber(literal string, f float64) *Error {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return errNonFinite
	}
	if f == math.Trunc(f) && (f > MaxSafeInteger || f < -MaxSafeInteger) {
		return errIntPrecision
	}
	want, ok := parseDecimal(literal)
	if !ok {
		return errDecPrecision
	}
	got, _ := parseDecimal(strconv.FormatFloat(f, 'e', -1, 64))
	if want != got {
		if !strings.ContainsAny(literal, ".eE") {
			return errIntPrecision
		}
		return errDecPrecision
	}
	return nil
}

// checkInteger applies the integer rule of SPEC §3.3.
func checkInteger(v int64) *Error {
	if v > MaxSafeInteger || v < -MaxSafeInteger {
		return errIntPrecision
	}
	return nil
}

// jsonNumber validates one JSON number token (RFC 8259 grammar, already
// checked by the decoder).
func jsonNumber(tok string) *Error {
	f, err := strconv.ParseFloat(tok, 64)
	if err != nil && !isRangeErr(err) {
		return errDecPrecision
	}
	return checkNumber(tok, f)
}

func isRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}
