package main

import (
	"os"
	"regexp"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/orch-bench/orch/orchestrator"
	"github.com/orch-bench/orch/orchestrator/suggest"
)

// The command line's grammar, in one place: which flags a command has
// (offline commands have no SSH flags), the inventory as -i FILE or a
// positional FILE, and one-line usage errors for unknown flags (with a
// suggestion) and bad flag values (naming the flag, no Go error text).

// flagGroup says which of the shared flags a command takes.
type flagGroup int

const (
	// inventoryFlags: -i and what loading an inventory needs (the SSH
	// settings an ips.txt takes from the command line, --known-hosts,
	// --ssh-config for aliases). orch inventory has these only, the SSH
	// ones hidden from its help.
	inventoryFlags flagGroup = iota + 1
	// clusterFlags: inventoryFlags and those for contacting hosts.
	clusterFlags
)

// inventoryArgs says which positional arguments of a cluster command name
// inventories (each as if given with -i).
type inventoryArgs int

const (
	// everyArg: the command takes no other positional argument.
	everyArg inventoryArgs = iota + 1
	// fileArgs: the arguments that are not directories (matrix --resume
	// RUNDIR, collect RUNDIR).
	fileArgs
	// beforeDash: the arguments before "--" (exec FILE -- COMMAND).
	beforeDash
)

// commandGrammar lists every command that takes the shared flags; a
// command not listed (parse, report, lab) has none of them.
var commandGrammar = map[string]struct {
	flags flagGroup
	args  inventoryArgs
}{
	"inventory": {flags: inventoryFlags},
	"check":     {clusterFlags, everyArg},
	"exec":      {clusterFlags, beforeDash},
	"up":        {clusterFlags, everyArg},
	"down":      {clusterFlags, everyArg},
	"status":    {clusterFlags, everyArg},
	"run":       {clusterFlags, everyArg},
	"matrix":    {clusterFlags, fileArgs},
	"collect":   {clusterFlags, fileArgs},
	"dbinsert":  {clusterFlags, everyArg},
}

// applyGrammar gives each of root's commands its flags and positional
// inventories, as commandGrammar says.
func (g *globalOptions) applyGrammar(root *cobra.Command) {
	for _, cmd := range root.Commands() {
		gr, ok := commandGrammar[cmd.Name()]
		if !ok {
			continue
		}
		f := cmd.Flags()
		g.bindInventoryFlags(f)
		if gr.flags == clusterFlags {
			g.bindConnectFlags(f)
		} else {
			// orch inventory contacts no host: its help lists no SSH
			// flag. It still takes those that change what an inventory
			// resolves to (its Long says so), so it shows what a cluster
			// command given them would use.
			for _, name := range sshLoadFlags {
				f.Lookup(name).Hidden = true
			}
		}
		if gr.args != 0 {
			takeInventoryArgs(cmd, gr.args)
		}
	}
}

// sshLoadFlags are the inventory flags about SSH.
var sshLoadFlags = []string{"known-hosts", "ssh-config", "ssh-user", "ssh-port", "identity"}

func (g *globalOptions) bindInventoryFlags(f *pflag.FlagSet) {
	f.StringArrayVarP(&g.Inventories, "inventory", "i", []string{"cluster.yaml"}, "inventory: a YAML cluster file or a legacy ips.txt (repeatable: one cluster per file); also a positional FILE")
	f.StringVar(&g.Cluster, "cluster", "", "the cluster to act on, of an inventory with several (default: every one for up, down, status, check and matrix)")
	f.StringVar(&g.KnownHosts, "known-hosts", "", "known_hosts file (overrides the inventory's)")
	f.StringVar(&g.SSHConfig, "ssh-config", "", `OpenSSH client config to honour (default ~/.ssh/config; "none" to ignore)`)
	f.StringVar(&g.SSH.User, "ssh-user", os.Getenv("ORCH_SSH_USER"), "SSH user for ips.txt inventories (env ORCH_SSH_USER)")
	f.IntVar(&g.SSH.Port, "ssh-port", 0, "SSH port for ips.txt inventories")
	f.StringSliceVar(&g.SSH.IdentityFiles, "identity", nil, "SSH private key for ips.txt inventories (repeatable)")
}

func (g *globalOptions) bindConnectFlags(f *pflag.FlagSet) {
	f.BoolVar(&g.AcceptNewHostKeys, "accept-new-host-keys", false, "trust and record host keys not yet in known_hosts (a changed key is always refused)")
	f.DurationVar(&g.ConnectTimeout, "connect-timeout", 0, "SSH connect timeout (default: inventory's, else 10s)")
	f.IntVar(&g.Parallel, "parallel", orchestrator.DefaultParallel, "hosts worked on at once")
	f.BoolVarP(&g.verbose, "verbose", "v", false, "print every step as it starts, the per-step timing table and every client command (they are always in the run directory's commands.txt)")
}

// takeInventoryArgs makes cmd take its inventory as a positional FILE too:
// before cmd's own argument check, each such argument is set as -i would
// set it (the first replaces the default, later ones add clusters) and
// removed from the arguments cmd sees.
func takeInventoryArgs(cmd *cobra.Command, which inventoryArgs) {
	check, run := cmd.Args, cmd.RunE
	if check == nil {
		check = cobra.ArbitraryArgs
	}
	if !strings.Contains(cmd.Use, "INVENTORY") {
		name, rest, _ := strings.Cut(cmd.Use, " ")
		cmd.Use = strings.TrimSpace(name + " [INVENTORY] " + rest)
	}
	var rest []string
	cmd.Args = func(cmd *cobra.Command, args []string) error {
		dash := cmd.ArgsLenAtDash()
		if which == beforeDash && dash < 0 && len(args) > 0 && isFile(args[0]) {
			// `orch exec cluster.yaml uptime` would run "cluster.yaml
			// uptime" on the default inventory's hosts.
			return usagef("%s: %s is a file here: for the inventory write %s %s -- COMMAND (or -i %s)",
				strings.TrimPrefix(cmd.CommandPath(), "orch "), args[0], cmd.CommandPath(), args[0], args[0])
		}
		rest = rest[:0]
		for i, a := range args {
			if !inventoryArg(which, a, i, dash) {
				rest = append(rest, a)
				continue
			}
			if err := cmd.Flags().Set("inventory", a); err != nil {
				return usagef("%s: inventory %s: %v", cmd.CommandPath(), a, err)
			}
		}
		return check(cmd, rest)
	}
	cmd.RunE = func(cmd *cobra.Command, _ []string) error { return run(cmd, rest) }
}

func inventoryArg(which inventoryArgs, arg string, i, dash int) bool {
	switch which {
	case beforeDash:
		return dash >= 0 && i < dash
	case fileArgs:
		st, err := os.Stat(arg)
		return err != nil || !st.IsDir()
	}
	return true
}

func isFile(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}

var (
	unknownFlagRE  = regexp.MustCompile(`^unknown (?:shorthand )?flag: (?:'(.)' in -\S+|(--?\S+))$`)
	badValueRE     = regexp.MustCompile(`^invalid argument "(.*)" for "(?:-., )?--([^"]+)" flag: `)
	needsValueRE   = regexp.MustCompile(`^flag needs an argument: (?:'(.)' in -\S+|--(\S+))$`)
	flagValueWants = map[string]string{
		"int":         "a whole number, e.g. 3",
		"int64":       "a whole number, e.g. 3",
		"uint":        "a whole number of 0 or more",
		"float64":     "a number, e.g. 2.5",
		"duration":    "a duration with a unit, e.g. 30s, 5m or 1h30m",
		"bool":        "true or false",
		"stringSlice": "comma-separated values",
	}
)

// flagError rewrites pflag's errors as one line naming the flag: an
// unknown flag gets the nearest known ones, a bad value says what the
// flag wants instead of strconv's words.
func flagError(cmd *cobra.Command, err error) error {
	msg := err.Error()
	// "orch mtrix -i FILE": the root has no -i, but the mistake is the
	// command's name.
	if args := cmd.Flags().Args(); !cmd.HasParent() && len(args) > 0 {
		return unknownCommand(cmd, args)
	}
	if m := unknownFlagRE.FindStringSubmatch(msg); m != nil {
		name := m[2]
		if m[1] != "" {
			name = "-" + m[1]
		}
		line := "unknown flag " + name
		if cmd.HasParent() {
			line = strings.TrimPrefix(cmd.CommandPath(), "orch ") + ": " + line
		}
		line += suggest.DidYouMean(suggestFlags(cmd, name))
		return usagef("%s (see %s --help)", line, cmd.CommandPath())
	}
	if m := badValueRE.FindStringSubmatch(msg); m != nil {
		want := "a valid value"
		if f := cmd.Flags().Lookup(m[2]); f != nil {
			if w, ok := flagValueWants[f.Value.Type()]; ok {
				want = w
			}
		}
		if strings.HasSuffix(msg, "value out of range") {
			want += " (this one is too large)"
		}
		return usagef("--%s %q: want %s", m[2], m[1], want)
	}
	if m := needsValueRE.FindStringSubmatch(msg); m != nil {
		name := m[2]
		if f := cmd.Flags().ShorthandLookup(m[1]); m[1] != "" && f != nil {
			name = f.Name
		}
		return usagef("--%s needs a value (see %s --help)", name, cmd.CommandPath())
	}
	return usagef("%s: %s (see %s --help)", strings.TrimPrefix(cmd.CommandPath(), "orch "), msg, cmd.CommandPath())
}

// suggestFlags are cmd's flags nearest to name (suggest.Closest), else
// those that start with it (--dry for --dry-run).
func suggestFlags(cmd *cobra.Command, name string) []string {
	typed := strings.TrimLeft(name, "-")
	var names []string
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			names = append(names, f.Name)
		}
	})
	out := suggest.Closest(typed, names)
	if len(out) == 0 && len(typed) >= 3 {
		for _, n := range names {
			if strings.HasPrefix(n, typed) {
				out = append(out, n)
			}
		}
	}
	for i := range out {
		out[i] = "--" + out[i]
	}
	return out
}
