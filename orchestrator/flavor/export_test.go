package flavor

// SecretStatement builds prefix + the quoted secret + suffix as the
// statement builders do (the secret redacted), for the external tests
// (live_test.go, package flavor_test: it needs topology, which imports
// this package).
func SecretStatement(prefix, secret, suffix string) Statement {
	return new(stmtBuilder).raw(prefix).secretStr(secret).raw(suffix).done()
}

// Plain is a statement without secrets; QuoteAccount quotes user@host.
var (
	Plain        = plain
	QuoteAccount = quoteAccount
)
