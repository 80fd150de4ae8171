package fakemaria

// What a test reads or changes on the simulated hosts.

// Short is the host's inventory name.
func (h *Host) Short() string { return h.name }

// Server is the host's database server.
func (h *Host) Server() *DB { return h.db }

// File returns a file's content on the host.
func (h *Host) File(p string) (string, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	s, ok := h.files[p]
	return s, ok
}

// Commands is how many commands (and uploads) the host has run.
func (h *Host) Commands() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.cmds)
}

// Crash stops the server as a kill would: the service reports it stopped.
func (h *Host) Crash() {
	h.mu.Lock()
	h.running = false
	h.mu.Unlock()
}

// RefuseOption makes the server refuse to start with the named option, as a
// server of another version does with an option it does not know.
func (h *Host) RefuseOption(name string) {
	h.mu.Lock()
	h.badOption = name
	h.mu.Unlock()
}

// Var is a global variable's value as SHOW GLOBAL VARIABLES prints it.
func (d *DB) Var(name string) string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.vars[name]
}

// HasUser says whether the account user@host exists.
func (d *DB) HasUser(user, host string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.users[user+"@"+host]
}

// Canaries is how many canary rows the server holds.
func (d *DB) Canaries() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.tokens)
}

// Replicating says whether the server is configured as a replica.
func (d *DB) Replicating() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.replica != nil
}

// StallApplier makes this slave apply nothing more while both its
// replication threads still say Yes, as an applier blocked on a lock does.
func (d *DB) StallApplier() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.stalled = true
}

// RefuseLogins makes the server refuse every login (a wrong password).
func (d *DB) RefuseLogins() {
	d.mu.Lock()
	d.refuse = true
	d.mu.Unlock()
}

// StatementCount is how many statements the server has received.
func (d *DB) StatementCount() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.sql)
}

// AddUser creates an account as a DBA would, outside orch.
func (d *DB) AddUser(user, host string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.users[user+"@"+host] = true
}

// DropUser drops an account as a DBA would, outside orch.
func (d *DB) DropUser(user, host string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.users, user+"@"+host)
}

// AddTable creates a schema and a table in it as a DBA would.
func (d *DB) AddTable(schema, table string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.catalogStatement("CREATE DATABASE IF NOT EXISTS `"+schema+"`", false)
	d.catalogStatement("CREATE TABLE IF NOT EXISTS `"+schema+"`.`"+table+"` (", false)
}

// InsertRow adds a row to schema.table as any account with INSERT on it
// could (the table must exist).
func (d *DB) InsertRow(schema, table string, values ...string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	name := schema + "." + table
	d.cat.tables[name] = append(d.cat.tables[name], values)
}

// HasTable reports whether schema.table exists.
func (d *DB) HasTable(schema, table string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	_, ok := d.cat.tables[schema+"."+table]
	return ok
}

// GeneralLog is what the server's general log holds.
func (d *DB) GeneralLog() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.general...)
}
