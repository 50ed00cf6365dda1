"""LLMJudgeGrader against a real local HTTP server faking an OpenAI-compatible gateway."""
import asyncio
import json
import os
import threading
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from unittest import mock

from hud.graders import LLMJudgeError, LLMJudgeGrader


class FakeGateway:
    """Judges a criterion MET when its text occurs in the answer (case-insensitive).

    With `barrier`, every request waits until that many are in flight, so a
    grader that judged criteria one after another would time out and fail.
    """

    def __init__(self, barrier=None, reply_style="json", status=200):
        self.requests = []
        self.barrier = barrier
        self.reply_style = reply_style
        self.status = status
        gateway = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                gateway.requests.append({"path": self.path, "auth": self.headers.get("Authorization"), "body": body})
                if gateway.barrier is not None:
                    try:
                        gateway.barrier.wait()
                    except threading.BrokenBarrierError:
                        self._send(500, {"error": "requests were not concurrent"})
                        return
                if gateway.status != 200:
                    self._send(gateway.status, {"error": {"message": "rate limited"}})
                    return
                self._send(200, gateway.judge(body))

            def _send(self, status, payload):
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()
        self.url = "http://127.0.0.1:{}/v1".format(self.server.server_address[1])

    def judge(self, body):
        user = body["messages"][-1]["content"]
        answer = user.split("Answer:\n", 1)[1].split("\n\n", 1)[0].lower()
        criterion = user.rsplit(": ", 1)[1].strip().lower()
        verdict = "MET" if criterion in answer else "UNMET"
        if self.reply_style == "json":
            content = json.dumps({"verdict": verdict, "reason": "looked for " + criterion})
        else:
            content = "Verdict: {}. I looked for {}.".format(verdict, criterion)
        return {"choices": [{"message": {"role": "assistant", "content": content}}]}

    def close(self):
        self.server.shutdown()
        self.server.server_close()


class LLMJudgeGraderTest(unittest.TestCase):
    def grade(self, gateway, **kw):
        with mock.patch.dict(os.environ, {"HUD_GATEWAY_URL": gateway.url, "HUD_API_KEY": "sk-test"}):
            return asyncio.run(LLMJudgeGrader.grade(kw.pop("weight", 1.0), **kw))

    def test_weighted_criteria_with_a_mistake(self):
        gateway = FakeGateway(barrier=threading.Barrier(4, timeout=10))
        self.addCleanup(gateway.close)
        s = self.grade(
            gateway,
            weight=0.5,
            answer="Paris is the capital, and it lies in Germany",
            criteria=["paris", ("capital", 2), ("germany", -1), "london"],
            question="What is the capital of France?",
        )
        # met positives 1 + 2 of 4, minus the met mistake's 1 -> 2 / 4
        self.assertAlmostEqual(s.value, 0.5)
        self.assertEqual((s.name, s.weight), ("LLMJudgeGrader", 0.5))
        verdicts = {c["requirement"]: c["verdict"] for c in s.metadata["criteria"]}
        self.assertEqual(verdicts, {"paris": "MET", "capital": "MET", "germany": "MET", "london": "UNMET"})
        self.assertEqual(len(gateway.requests), 4)
        first = gateway.requests[0]
        self.assertEqual(first["path"], "/v1/chat/completions")
        self.assertEqual(first["auth"], "Bearer sk-test")
        self.assertEqual(first["body"]["model"], "claude-haiku-4-5")
        self.assertIn("What is the capital of France?", first["body"]["messages"][-1]["content"])
        asks = [r["body"]["messages"][-1]["content"] for r in gateway.requests]
        self.assertEqual(len([a for a in asks if a.endswith("Mistake: germany") and "MET means the mistake IS present" in a]), 1)

    def test_score_is_clamped_to_zero(self):
        gateway = FakeGateway()
        self.addCleanup(gateway.close)
        s = self.grade(gateway, answer="wrong and rude", criteria=["right", ("wrong", -5), ("rude", -5)])
        self.assertEqual(s.value, 0.0)

    def test_only_mistakes_start_from_one(self):
        gateway = FakeGateway()
        self.addCleanup(gateway.close)
        s = self.grade(gateway, answer="a typo here", criteria=[("typo", -1), ("insult", -1)])
        self.assertAlmostEqual(s.value, 0.5)

    def test_plain_text_verdicts_and_model_name(self):
        gateway = FakeGateway(reply_style="text")
        self.addCleanup(gateway.close)
        s = self.grade(gateway, answer="Ünïcode answer", criteria=["ünïcode", "missing"], model="judge-model", name="rubric")
        self.assertEqual((s.name, s.value), ("rubric", 0.5))
        self.assertEqual(gateway.requests[0]["body"]["model"], "judge-model")

    def test_missing_variables_name_both(self):
        with mock.patch.dict(os.environ, {}, clear=True):
            with self.assertRaises(LLMJudgeError) as caught:
                asyncio.run(LLMJudgeGrader.grade(1.0, answer="x", criteria=["y"]))
        self.assertIn("HUD_GATEWAY_URL", str(caught.exception))
        self.assertIn("HUD_API_KEY", str(caught.exception))

    def test_gateway_http_error_is_reported(self):
        gateway = FakeGateway(status=429)
        self.addCleanup(gateway.close)
        with self.assertRaisesRegex(LLMJudgeError, "HTTP 429"):
            self.grade(gateway, answer="x", criteria=["x"])

    def test_bad_criteria(self):
        gateway = FakeGateway()
        self.addCleanup(gateway.close)
        with self.assertRaisesRegex(ValueError, "non-empty"):
            self.grade(gateway, answer="x", criteria=[])
        with self.assertRaisesRegex(ValueError, "criterion 0"):
            self.grade(gateway, answer="x", criteria=[("x", "heavy")])
        self.assertEqual(gateway.requests, [])


if __name__ == "__main__":
    unittest.main()
