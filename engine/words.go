package engine

import "strconv"

// Plural is the word for n things: one when n is 1, else many. It is the
// one home of the rule for every front end and package ("1 request", "2
// requests", "was"/"were").
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Count writes n with its word: "1 request", "3 requests".
func Count(n int, one, many string) string {
	return strconv.Itoa(n) + " " + Plural(n, one, many)
}
