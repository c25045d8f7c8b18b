package config

// unknownReason is the reason of an unknown config key or environment
// variable: "is not a sops-aws-sync setting", and, when a setting's name is
// within a small edit distance of name (a typo: replica-region,
// replicas-regions), "; did you mean replica-regions?". Only our own
// setting name is echoed, never the input; suggest is false for a key
// that is not safe to echo (validKeyText), which gets no suggestion either.
func unknownReason(name string, suggest bool) string {
	const reason = "is not a sops-aws-sync setting"
	if !suggest {
		return reason
	}
	if n := nearestSetting(name); n != "" {
		return reason + "; did you mean " + n + "?"
	}
	return reason
}

// nearestSetting is the setting name closest to name by Levenshtein
// distance, when that distance is at most a third of the name's length
// (at least 1, at most 3); "" when none is that close. Ties go to the
// setting declared first.
func nearestSetting(name string) string {
	names := make([]string, len(Settings))
	for i, s := range Settings {
		names[i] = s.Name
	}
	return Nearest(name, names)
}

// Nearest is the name of names closest to name by Levenshtein distance,
// when that distance is at most a third of name's length (at least 1, at
// most 3) and not 0; "" when none is that close. Ties go to the earlier
// name. The rule of every "did you mean" (config keys, variables, the
// flags of a command).
func Nearest(name string, names []string) string {
	limit := min(max(len(name)/3, 1), 3)
	best, bestD := "", limit+1
	for _, n := range names {
		if d := editDistance(name, n); d > 0 && d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, by bytes
// (setting names are ASCII).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// unknownEnvReason is unknownReason for a SOPS_AWS_SYNC_* variable whose
// setting part is name: the suggestion is the variable of the nearest
// setting.
func unknownEnvReason(name string) string {
	const reason = "is not a sops-aws-sync setting"
	if !validKeyText(name) {
		return reason
	}
	if n := nearestSetting(name); n != "" {
		if s, _ := Lookup(n); !s.FlagOnly {
			return reason + "; did you mean " + EnvName(n) + "?"
		}
	}
	return reason
}
