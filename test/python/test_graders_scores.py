import asyncio
import unittest

from hud.graders import EvaluationResult, Grader, SubScore, combine, combine_all, combine_any


def run(coro):
    return asyncio.run(coro)


class SubScoreTest(unittest.TestCase):
    def test_fields_and_defaults(self):
        s = SubScore("tests", 0.5)
        self.assertEqual((s.name, s.value, s.weight, s.metadata, s.children), ("tests", 0.5, 1.0, None, None))
        self.assertEqual(s.to_dict(), {"name": "tests", "value": 0.5, "weight": 1.0})

    def test_metadata_and_info_are_the_same_field(self):
        self.assertEqual(SubScore("a", 1.0, info={"x": 1}).metadata, {"x": 1})
        self.assertEqual(SubScore("a", 1.0, metadata={"x": 1}).info, {"x": 1})
        both = SubScore("a", 1.0, metadata={"x": 1}, info={"y": 2})
        self.assertEqual(both.to_dict()["metadata"], {"x": 1, "y": 2})

    def test_value_must_be_in_unit_interval(self):
        for bad in (-0.1, 1.5, float("nan")):
            with self.assertRaises(ValueError):
                SubScore("a", bad)
        self.assertEqual(SubScore("a", 0).value, 0.0)
        self.assertEqual(SubScore("a", 1).value, 1.0)

    def test_negative_weight_is_a_penalty(self):
        self.assertEqual(SubScore("p", 1.0, -0.5).weight, -0.5)


class EvaluationResultTest(unittest.TestCase):
    def test_defaults(self):
        r = EvaluationResult()
        self.assertEqual((r.reward, r.done, r.subscores, r.info, r.content, r.isError), (0.0, True, None, {}, None, False))

    def test_from_float(self):
        r = EvaluationResult.from_float(0.75)
        self.assertEqual(r.reward, 0.75)
        self.assertTrue(r.done)

    def test_wire_form_calls_reward_score(self):
        r = EvaluationResult(reward=0.5, subscores=[SubScore("a", 0.5)], info={"k": "v"}, content="why", isError=True)
        self.assertEqual(
            r.to_wire(),
            {
                "score": 0.5,
                "done": True,
                "info": {"k": "v"},
                "isError": True,
                "subscores": [{"name": "a", "value": 0.5, "weight": 1.0}],
                "content": "why",
            },
        )

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
        self.assertEqual((s.name, s.value, s.weight, s.metadata), ("Half", 0.5, 2.0, None))

    def test_tuple_result_with_metadata_and_explicit_name(self):
        class Check(Grader):
            name = "check"

            @classmethod
            async def compute_score(cls, answer, **kw):
                return (1.0 if answer == "yes" else 0.0), {"seen": answer}

        s = run(Check.grade(weight=0.3, answer="yes"))
        self.assertEqual((s.name, s.value, s.metadata), ("check", 1.0, {"seen": "yes"}))
        renamed = run(Check.grade(weight=0.3, name="custom", answer="no"))
        self.assertEqual((renamed.name, renamed.value), ("custom", 0.0))

    def test_out_of_range_score_is_an_error(self):
        class TooHigh(Grader):
            @classmethod
            async def compute_score(cls, **kw):
                return 2.0

        with self.assertRaisesRegex(ValueError, "TooHigh"):
            run(TooHigh.grade())

    def test_missing_compute_score(self):
        with self.assertRaisesRegex(NotImplementedError, "compute_score"):
            run(Grader.grade())


class CombineTest(unittest.TestCase):
    def test_positive_weights_are_normalized(self):
        r = run(combine(SubScore("a", 1.0, 3.0), SubScore("b", 0.0, 1.0)))
        self.assertIsInstance(r, EvaluationResult)
        self.assertAlmostEqual(r.reward, 0.75)
        self.assertEqual([s.weight for s in r.subscores], [0.75, 0.25])

    def test_penalties_are_kept_and_reward_is_not_clamped(self):
        r = run(combine(SubScore("ok", 0.0, 1.0), SubScore("mistake", 1.0, -0.5)))
        self.assertAlmostEqual(r.reward, -0.5)
        self.assertEqual([s.weight for s in r.subscores], [1.0, -0.5])
        r2 = run(combine(SubScore("ok", 1.0, 2.0), SubScore("mistake", 1.0, -0.25)))
        self.assertAlmostEqual(r2.reward, 0.75)

    def test_awaitables_resolve_in_parallel(self):
        order = []

        async def slow(name, delay):
            order.append("start " + name)
            await asyncio.sleep(delay)
            order.append("end " + name)
            return SubScore(name, 1.0)

        r = run(combine(slow("a", 0.05), slow("b", 0.0), SubScore("c", 0.0)))
        # Both started before either finished: they ran concurrently.
        self.assertEqual(order[:2], ["start a", "start b"])
        self.assertEqual([s.name for s in r.subscores], ["a", "b", "c"])
        self.assertAlmostEqual(r.reward, 2 / 3)

    def test_duplicate_names_get_suffixes(self):
        r = run(combine(SubScore("a", 1.0), SubScore("a", 0.0), SubScore("b", 1.0)))
        self.assertEqual([s.name for s in r.subscores], ["a-1", "a-2", "b"])

    def test_list_argument(self):
        r = run(combine([SubScore("a", 1.0), SubScore("b", 1.0)]))
        self.assertAlmostEqual(r.reward, 1.0)

    def test_errors(self):
        with self.assertRaisesRegex(ValueError, "at least one"):
            run(combine())
        with self.assertRaisesRegex(ValueError, "positive weight"):
            run(combine(SubScore("p", 1.0, -1.0), SubScore("z", 1.0, 0.0)))
        with self.assertRaisesRegex(TypeError, "not a SubScore"):
            run(combine(0.5))

    def test_metadata_survives(self):
        r = run(combine(SubScore("a", 1.0, metadata={"k": 1})))
        self.assertEqual(r.subscores[0].metadata, {"k": 1})


class CombineAnyAllTest(unittest.TestCase):
    def test_any_is_max_all_is_min_children_kept(self):
        subs = [SubScore("x", 0.2), SubScore("y", 0.9)]
        best = run(combine_any(0.5, subs))
        worst = run(combine_all(0.5, subs, name="both"))
        self.assertEqual((best.name, best.value, best.weight), ("any", 0.9, 0.5))
        self.assertEqual((worst.name, worst.value), ("both", 0.2))
        self.assertEqual([c.name for c in best.children], ["x", "y"])
        self.assertEqual(worst.to_dict()["children"][0], {"name": "x", "value": 0.2, "weight": 1.0})

    def test_awaitables_and_nesting_into_combine(self):
        async def sub(v):
            return SubScore("s", v)

        any_score = run(combine_any(1.0, [sub(0.0), sub(1.0)]))
        self.assertEqual(any_score.value, 1.0)
        r = run(combine(combine_all(1.0, [SubScore("a", 1.0), SubScore("b", 0.5)]), SubScore("c", 1.0)))
        self.assertAlmostEqual(r.reward, 0.75)

    def test_empty_is_an_error(self):
        with self.assertRaises(ValueError):
            run(combine_any(1.0, []))
        with self.assertRaises(ValueError):
            run(combine_all(1.0, []))


if __name__ == "__main__":
    unittest.main()
