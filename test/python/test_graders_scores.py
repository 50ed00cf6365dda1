import asyncio
import unittest

from hud.graders import EvaluationResult, Grader, SubScore, combine, combine_all, combine_any


def run(coro):
    return asyncio.run(coro)


class SubScoreTest(unittest.TestCase):
    def test_fields_and_defaults(self):
        s = SubScore(name="tests", value=0.5)
        self.assertEqual((s.name, s.value, s.weight, s.metadata, s.children), ("tests", 0.5, 1.0, None, None))
        # The SDK's wire shape: every field, unset ones as None.
        self.assertEqual(s.model_dump(), {"name": "tests", "weight": 1.0, "value": 0.5, "children": None, "info": None})
        self.assertEqual(s.score, 0.5)
        with self.assertRaisesRegex(TypeError, "keywords only"):
            SubScore("tests", 0.5)

    def test_metadata_and_info_are_the_same_field(self):
        self.assertEqual(SubScore(name="a", value=1.0, info={"x": 1}).metadata, {"x": 1})
        self.assertEqual(SubScore(name="a", value=1.0, metadata={"x": 1}).info, {"x": 1})
        self.assertEqual(SubScore(name="a", value=1.0, metadata={"x": 1}).model_dump()["info"], {"x": 1})
        self.assertEqual(SubScore.model_validate({"name": "a", "value": 1.0, "metadata": {"x": 1}}).info, {"x": 1})

    def test_value_must_be_in_unit_interval(self):
        for bad in (-0.1, 1.5, float("nan")):
            with self.assertRaises(ValueError):
                SubScore(name="a", value=bad)
        self.assertEqual(SubScore(name="a", value=0).value, 0.0)
        self.assertEqual(SubScore(name="a", value=1).value, 1.0)

    def test_negative_weight_is_a_penalty(self):
        self.assertEqual(SubScore(name="p", value=1.0, weight=-0.5).weight, -0.5)


class EvaluationResultTest(unittest.TestCase):
    def test_defaults(self):
        r = EvaluationResult()
        self.assertEqual((r.reward, r.done, r.subscores, r.info, r.content, r.isError), (0.0, True, None, {}, None, False))

    def test_from_float(self):
        r = EvaluationResult.from_float(0.75)
        self.assertEqual(r.reward, 0.75)
        self.assertTrue(r.done)

    def test_wire_form_calls_reward_score(self):
        r = EvaluationResult(reward=0.5, subscores=[SubScore(name="a", value=0.5)], info={"k": "v"}, content="why", isError=True)
        self.assertEqual(
            r.to_wire(),
            {
                "score": 0.5,
                "done": True,
                "info": {"k": "v"},
                "isError": True,
                "subscores": [{"name": "a", "weight": 1.0, "value": 0.5, "children": None, "info": None}],
                "content": "why",
            },
        )
        self.assertEqual(EvaluationResult(reward=1).to_wire(),
                         {"score": 1.0, "done": True, "content": None, "info": {}, "isError": False, "subscores": None})
        self.assertEqual(EvaluationResult.model_validate(r.model_dump()).model_dump(), r.model_dump())

    def test_info_default_is_not_shared(self):
        a = EvaluationResult()
        a.info["x"] = 1
        self.assertEqual(EvaluationResult().info, {})


class GraderTest(unittest.TestCase):
    def test_float_result_named_after_class(self):
        class Half(Grader):
            @classmethod
            async def compute_score(cls, **kw):
                return 0.5

        s = run(Half.grade(weight=2.0))
        # As in the SDK: the class's `name` (default "BaseGrader"), and the call's parameters in info.
        self.assertEqual((s.name, s.value, s.weight, s.info), ("BaseGrader", 0.5, 2.0, {"_parameters": {}}))

    def test_tuple_result_with_metadata_and_explicit_name(self):
        class Check(Grader):
            name = "check"

            @classmethod
            async def compute_score(cls, answer, **kw):
                return (1.0 if answer == "yes" else 0.0), {"seen": answer}

        s = run(Check.grade(weight=0.3, answer="yes"))
        self.assertEqual((s.name, s.value, s.info), ("check", 1.0, {"seen": "yes", "_parameters": {"answer": "yes"}}))
        renamed = run(Check.grade(weight=0.3, name="custom", answer="no"))
        self.assertEqual((renamed.name, renamed.value), ("custom", 0.0))

    def test_out_of_range_score_is_an_error(self):
        class TooHigh(Grader):
            @classmethod
            async def compute_score(cls, **kw):
                return 2.0

        with self.assertRaisesRegex(ValueError, "outside \\[0, 1\\]"):
            run(TooHigh.grade(1.0))

    def test_missing_compute_score(self):
        with self.assertRaisesRegex(NotImplementedError, "compute_score"):
            run(Grader.grade(1.0))


class CombineTest(unittest.TestCase):
    def test_positive_weights_are_normalized(self):
        r = run(combine(SubScore(name="a", value=1.0, weight=3.0), SubScore(name="b", value=0.0, weight=1.0)))
        self.assertIsInstance(r, EvaluationResult)
        self.assertAlmostEqual(r.reward, 0.75)
        self.assertEqual([s.weight for s in r.subscores], [0.75, 0.25])

    def test_penalties_are_kept_and_reward_is_not_clamped(self):
        r = run(combine(SubScore(name="ok", value=0.0, weight=1.0), SubScore(name="mistake", value=1.0, weight=-0.5)))
        self.assertAlmostEqual(r.reward, -0.5)
        self.assertEqual([s.weight for s in r.subscores], [1.0, -0.5])
        r2 = run(combine(SubScore(name="ok", value=1.0, weight=2.0), SubScore(name="mistake", value=1.0, weight=-0.25)))
        self.assertAlmostEqual(r2.reward, 0.75)

    def test_awaitables_resolve_in_parallel(self):
        order = []

        async def slow(name, delay):
            order.append("start " + name)
            await asyncio.sleep(delay)
            order.append("end " + name)
            return SubScore(name=name, value=1.0)

        r = run(combine(slow("a", 0.05), slow("b", 0.0), SubScore(name="c", value=0.0)))
        # Both started before either finished: they ran concurrently.
        self.assertEqual(order[:2], ["start a", "start b"])
        self.assertEqual([s.name for s in r.subscores], ["a", "b", "c"])
        self.assertAlmostEqual(r.reward, 2 / 3)

    def test_duplicate_names_get_suffixes(self):
        r = run(combine(SubScore(name="a", value=1.0), SubScore(name="a", value=0.0), SubScore(name="b", value=1.0)))
        self.assertEqual([s.name for s in r.subscores], ["a-1", "a-2", "b"])
        # A suffix never collides with a name already given (the SDK's rule).
        r = run(combine(SubScore(name="a", value=1.0), SubScore(name="a", value=1.0), SubScore(name="a-1", value=1.0)))
        self.assertEqual([s.name for s in r.subscores], ["a-2", "a-3", "a-1"])

    def test_list_argument_is_refused_as_by_the_sdk(self):
        with self.assertRaisesRegex(TypeError, r"got list \(pass them one by one: combine\(\*subscores\)\)"):
            run(combine([SubScore(name="a", value=1.0), SubScore(name="b", value=1.0)]))

    def test_errors(self):
        with self.assertRaisesRegex(ValueError, "must not be empty"):
            run(combine())
        with self.assertRaisesRegex(ValueError, "positive weight"):
            run(combine(SubScore(name="p", value=1.0, weight=-1.0), SubScore(name="z", value=1.0, weight=0.0)))
        with self.assertRaisesRegex(TypeError, "expected SubScore"):
            run(combine(0.5))

    def test_metadata_survives(self):
        r = run(combine(SubScore(name="a", value=1.0, metadata={"k": 1})))
        self.assertEqual(r.subscores[0].metadata, {"k": 1})


class CombineAnyAllTest(unittest.TestCase):
    def test_any_is_max_all_is_min_children_kept(self):
        subs = [SubScore(name="x", value=0.2), SubScore(name="y", value=0.9)]
        # Synchronous in the SDK v6, with `subscores=` and a keyword-only name.
        best = combine_any(0.5, subscores=subs)
        worst = combine_all(0.5, subs, name="both")
        self.assertEqual((best.name, best.value, best.weight), ("any", 0.9, 0.5))
        self.assertEqual((worst.name, worst.value), ("both", 0.2))
        self.assertEqual([c.name for c in best.children], ["x", "y"])
        self.assertEqual(worst.model_dump()["children"][0], {"name": "x", "weight": 1.0, "value": 0.2, "children": None, "info": None})
        twins = combine_any(1.0, [SubScore(name="t", value=0.0), SubScore(name="t", value=1.0)])
        self.assertEqual([c.name for c in twins.children], ["t-1", "t-2"])

    def test_awaitables_and_nesting_into_combine(self):
        async def sub(v):
            return SubScore(name="s", value=v)

        with self.assertRaisesRegex(TypeError, "synchronous"):
            combine_any(1.0, [sub(0.0), sub(1.0)])
        r = run(combine(combine_all(1.0, [SubScore(name="a", value=1.0), SubScore(name="b", value=0.5)]), SubScore(name="c", value=1.0)))
        self.assertAlmostEqual(r.reward, 0.75)

    def test_empty_is_an_error(self):
        with self.assertRaises(ValueError):
            combine_any(1.0, [])
        with self.assertRaises(ValueError):
            combine_all(1.0, [])


if __name__ == "__main__":
    unittest.main()


class JsonModeTest(unittest.TestCase):
    """A result's `info` and extra fields as the SDK's models write them in JSON mode."""

    def test_values_json_has_no_type_for(self):
        import dataclasses
        import datetime
        import enum
        import pathlib

        @dataclasses.dataclass
        class Check:
            value: int
            on: datetime.date = datetime.date(2024, 1, 2)

        class Level(enum.Enum):
            HIGH = "high"

        info = {
            "check": Check(1), "set": {3}, "pair": (1, 2), "raw": b"x", "at": datetime.datetime(2024, 1, 2, 3, 4, 5),
            "level": Level.HIGH, "path": pathlib.Path("/x"), "took": datetime.timedelta(seconds=90),
            "nan": float("nan"), 1: "int key",
        }
        frame = EvaluationResult(reward=1.0, info=info, extra={"b"}).to_wire()
        self.assertEqual(frame["info"], {
            "check": {"value": 1, "on": "2024-01-02"}, "set": [3], "pair": [1, 2], "raw": "x",
            "at": "2024-01-02T03:04:05", "level": "high", "path": "/x", "took": "PT1M30S", "nan": None, "1": "int key",
        })
        self.assertEqual(frame["extra"], ["b"])
        self.assertEqual(SubScore(name="s", value=1.0, info={"s": {2}}).model_dump(mode="json")["info"], {"s": [2]})

    def test_durations(self):
        import datetime

        from hud.graders.json_mode import json_mode

        cases = [(0, "PT0S"), (5, "PT5S"), (3600, "PT1H"), (86400 + 7200, "P1DT2H"), (1.5, "PT1.5S"), (-5, "-PT5S")]
        for seconds, text in cases:
            self.assertEqual(json_mode(datetime.timedelta(seconds=seconds)), text, seconds)

    def test_an_unknown_object_is_refused(self):
        class Opaque:
            pass

        with self.assertRaisesRegex(TypeError, "Unable to serialize unknown type"):
            EvaluationResult(reward=1.0, info={"o": Opaque()}).to_wire()
