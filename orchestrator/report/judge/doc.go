// Package judge is the report's third room: the decisions. Build groups
// runs into tables and configurations and compares them with the baseline;
// the verdicts, the stopping rule's judge (JudgeMatrix, the one judge that
// `orch matrix --until` and its simulation call), fairness and
// comparability, steady state, the replicas' keeping up, invariants a run's
// figures must satisfy, the noise floor and the "where the time went" rules
// are here. It writes no file: render words and draws what it decides.
//
// judge imports analyse and load; render builds on it.
package judge
