package bench

import "github.com/orch-bench/orch/orchestrator/executor"

// Command is the step ready for an executor, run in the foreground: the
// tests run steps locally and on the lab. (bench itself reaches no host,
// so that a report can parse outputs without the executor.)
func (s Step) Command() executor.Command {
	return executor.Command{Script: s.Script(), Env: s.Env, SecretEnv: s.SecretEnv}
}
