"""Unit tests of Scripts/mutants' own logic: the parts that decide an outcome without a build
(the schema's blame of a compiler error, the first failing test in swift-testing's event stream,
the run order that makes a stopped run a sample, the estimate, the incremental reuse of results).

Run: python3 -m unittest discover -s Tests/Mutants -p '*_test.py'   (CI runs it)
"""

import json
import subprocess
import tempfile
import time
import unittest
from importlib.machinery import SourceFileLoader
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
mutants = SourceFileLoader("mutants", str(ROOT / "Scripts" / "mutants")).load_module()


class BracketPairsTests(unittest.TestCase):
    def test_pairs_around_an_offset_skip_strings_and_comments(self):
        text = b'func f() {\n  let s = "a{" // {\n  g { x in (a ? b : c) }\n}\n'
        pairs = mutants.bracket_pairs(text, text.index(b"x in"))
        self.assertEqual([text[a:b] for a, b in pairs], [b"{ x in (a ? b : c) }", text[9:-1]])

    def test_nothing_around_top_level_code(self):
        self.assertEqual(mutants.bracket_pairs(b"let a = 1\n", 4), [])


class BlameTests(unittest.TestCase):
    def schema(self, text, ranges):
        schema = mutants.Schema([], Path("."))
        schema.files = {"Sources/A/F.swift": (text, ranges)}
        return schema

    def test_error_on_a_closure_header_blames_the_closure_switches(self):
        text = b"x.write { db, keys in\n    guard S1 else { return nil }\n    return S2\n}\nlet other = S3\n"
        ranges = {1: (text.index(b"S1"), text.index(b"S1") + 2), 2: (text.index(b"S2"), text.index(b"S2") + 2),
                  3: (text.index(b"S3"), text.index(b"S3") + 2)}
        log = "/work/main/Sources/A/F.swift:1:11: error: contextual closure type expects 2 arguments\n"
        self.assertEqual(sorted(self.schema(text, ranges).blame(log)), [1, 2])

    def test_error_inside_a_switch_blames_only_the_innermost(self):
        text = b"let a = (S1 ? (S2 ? x : y) : z)\n"
        ranges = {1: (8, len(text) - 1), 2: (14, 26)}
        log = "Sources/A/F.swift:1:16: error: cannot convert\n"
        self.assertEqual(list(self.schema(text, ranges).blame(log)), [2])


class FailingTestTests(unittest.TestCase):
    def stream(self, *payloads):
        folder = tempfile.mkdtemp()
        path = Path(folder) / "events.jsonl"
        path.write_text("".join(json.dumps({"kind": "event", "payload": p, "version": 0}) + "\n" for p in payloads))
        return path

    def test_first_issue_names_its_test_without_the_source_location(self):
        path = self.stream(
            {"kind": "testStarted", "testID": "T.Suite/a()/F.swift:3:6"},
            {"kind": "issueRecorded", "issue": {"isKnown": False}, "testID": "T.Suite/a()/F.swift:3:6"},
            {"kind": "issueRecorded", "issue": {"isKnown": False}, "testID": "T.Suite/b()/F.swift:9:6"})
        self.assertEqual(mutants.failing_test_in(path), "T.Suite/a()")

    def test_a_growing_stream_is_read_in_pieces_and_a_line_cut_in_two_is_joined(self):
        issue = json.dumps({"kind": "event", "payload": {"kind": "issueRecorded", "issue": {"isKnown": False},
                                                         "testID": "T.S/c()/F.swift:5:6"}}) + "\n"
        path = self.stream({"kind": "testStarted", "testID": "T.S/c()/F.swift:5:6"})
        stream = mutants.EventStream(path)
        self.assertIsNone(stream.failing_test())
        with open(path, "a") as writer:
            writer.write(issue[:30])
        self.assertIsNone(stream.failing_test())
        with open(path, "a") as writer:
            writer.write(issue[30:])
        self.assertEqual(stream.failing_test(), "T.S/c()")

    def test_a_stream_that_stops_growing_is_a_hang_only_once_it_has_begun(self):
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "events.jsonl"
            stream = mutants.EventStream(str(path))
            self.assertIsNone(stream.failing_test())
            self.assertFalse(stream.stalled(time.monotonic() + 10_000), "no stream yet: a build, not a hang")
            path.write_text('{"kind":"event","payload":{"kind":"testStarted"}}\n')
            stream.failing_test()
            began = stream.last_growth
            self.assertFalse(stream.stalled(began + mutants.STALL_SECONDS - 1))
            self.assertTrue(stream.stalled(began + mutants.STALL_SECONDS + 1))
            with path.open("a") as more:
                more.write('{"kind":"event","payload":{"kind":"testEnded"}}\n')
            stream.failing_test()
            self.assertFalse(stream.stalled(stream.last_growth + mutants.STALL_SECONDS - 1), "growth restarts the clock")

    def test_a_run_whose_stream_falls_silent_is_stopped_as_stalled(self):
        with tempfile.TemporaryDirectory() as folder:
            events = Path(folder) / "events.jsonl"
            events.write_text('{"kind":"event","payload":{"kind":"testStarted"}}\n')
            process = subprocess.Popen(["sleep", "30"], start_new_session=True)
            saved, mutants.STALL_SECONDS = mutants.STALL_SECONDS, 0.5
            try:
                began = time.monotonic()
                self.assertEqual(mutants.wait_watching(process, 20, str(events)), "stalled")
                self.assertLess(time.monotonic() - began, 10)
            finally:
                mutants.STALL_SECONDS = saved
            self.assertIsNotNone(process.poll(), "the silent run was killed")

    def test_known_issues_and_passing_runs_are_not_failures(self):
        path = self.stream({"kind": "issueRecorded", "issue": {"isKnown": True}, "testID": "T.S/a()/F.swift:1:1"},
                           {"kind": "testEnded", "testID": "T.S/a()/F.swift:1:1"})
        self.assertIsNone(mutants.failing_test_in(path))
        self.assertIsNone(mutants.failing_test_in(Path(tempfile.mkdtemp()) / "absent.jsonl"))


class RunOrderTests(unittest.TestCase):
    def test_folders_take_turns_and_the_order_is_fixed(self):
        group = [{"id": f"g-{n}", "folder": "A" if n < 6 else "B"} for n in range(9)]
        order = mutants.run_order(group)
        self.assertEqual([m["folder"] for m in order[:6]], ["A", "B"] * 3)
        self.assertEqual(sorted(m["id"] for m in order), sorted(m["id"] for m in group))
        self.assertEqual(order, mutants.run_order(list(reversed(group))))


class EstimateTests(unittest.TestCase):
    def test_complete_folder_is_its_plain_score(self):
        self.assertEqual(mutants.estimate(9, 0, 1, 0), "90% (all run)")

    def test_sample_gives_a_wilson_interval_scaled_by_the_uncovered(self):
        # 38 of 40 killed (Wilson 83.5-98.6%), 100 left, 3 not covered of 143 that count.
        self.assertEqual(mutants.estimate(38, 2, 3, 100), "93% (82-97%)")
        self.assertEqual(mutants.estimate(0, 0, 0, 5), "- (none run)")


class FingerprintTests(unittest.TestCase):
    def tree(self):
        root = Path(tempfile.mkdtemp())
        (root / "Sources" / "A").mkdir(parents=True)
        (root / "Tests" / "ATests").mkdir(parents=True)
        (root / "Sources" / "A" / "F.swift").write_text("let a = 1\n")
        (root / "Tests" / "ATests" / "FTests.swift").write_text("struct FTests {\n}\n")
        return root

    def test_a_kill_holds_while_its_file_and_killing_suite_are_unchanged(self):
        root = self.tree()
        result = {"file": "Sources/A/F.swift", "status": "killed", "tests": ["ATests.FTests/a()"]}
        mutants.Fingerprints(root).stamp(result)
        (root / "Tests" / "ATests" / "Other.swift").write_text("struct OtherTests {}\n")
        self.assertTrue(mutants.Fingerprints(root).still_holds(result))
        (root / "Tests" / "ATests" / "FTests.swift").write_text("struct FTests {\n  // changed\n}\n")
        self.assertFalse(mutants.Fingerprints(root).still_holds(result))

    def test_a_survivor_never_carries_over(self):
        root = self.tree()
        result = mutants.Fingerprints(root).stamp({"file": "Sources/A/F.swift", "status": "survived", "tests": []})
        self.assertFalse(mutants.Fingerprints(root).still_holds(result))

    def test_a_changed_source_file_drops_every_result(self):
        root = self.tree()
        result = mutants.Fingerprints(root).stamp({"file": "Sources/A/F.swift", "status": "not-compiling"})
        self.assertTrue(mutants.Fingerprints(root).still_holds(result))
        (root / "Sources" / "A" / "F.swift").write_text("let a = 2\n")
        self.assertFalse(mutants.Fingerprints(root).still_holds(result))


class KnownOutcomeTests(unittest.TestCase):
    def test_not_compiling_wins_over_not_covered(self):
        mutant = {"id": "g-1", "file": "Sources/A/F.swift"}
        schema = mutants.Schema([mutant], Path("."))
        schema.dropped = {1: "F.swift:3: error: cannot convert"}
        outcome = mutants.known_outcome(mutant, schema, ([[], []], "coverage"))
        self.assertEqual(outcome["status"], "not-compiling")
        schema.dropped = {}
        self.assertEqual(mutants.known_outcome(mutant, schema, ([[], []], "coverage"))["status"], "not-covered")
        self.assertIsNone(mutants.known_outcome(mutant, schema, ([["S"], []], "coverage")))


class TerminationTests(unittest.TestCase):
    def test_sigterm_exits_and_an_ignored_sighup_stays_ignored(self):
        import signal
        saved = {number: signal.getsignal(number) for number in (signal.SIGTERM, signal.SIGHUP)}
        try:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            signal.signal(signal.SIGHUP, signal.SIG_IGN)
            mutants.exit_on_termination()
            self.assertEqual(signal.getsignal(signal.SIGHUP), signal.SIG_IGN)
            with self.assertRaises(SystemExit) as raised:
                signal.getsignal(signal.SIGTERM)(signal.SIGTERM, None)
            self.assertEqual(raised.exception.code, 128 + signal.SIGTERM)
        finally:
            for number, handler in saved.items():
                signal.signal(number, handler)


class ReportNotesTests(unittest.TestCase):
    def test_a_new_report_keeps_the_hand_written_end(self):
        path = Path(tempfile.mkdtemp()) / "report.md"
        path.write_text("# Generated\n\n| a |\n\n## Notes (written by hand: the passes)\n\nkept\n")
        self.assertEqual(mutants.hand_written_notes(path), "\n## Notes (written by hand: the passes)\n\nkept\n")
        path.write_text("# Generated\n")
        self.assertEqual(mutants.hand_written_notes(path), "")
        self.assertEqual(mutants.hand_written_notes(path.parent / "absent.md"), "")


if __name__ == "__main__":
    unittest.main()
