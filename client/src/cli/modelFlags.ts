/** The llm agent's flags (`--model`, `--base-url`, `--system`, limits) as an AgentChoice, keys from the environment. */
import { createAgent, type AgentChoice } from '../engine/agents/create';
import { DEFAULT_LLM_SETTINGS, type LlmSettings } from '../engine/agents/llm/llmAgent';
import { resolveModel, type ModelEndpoint } from '../engine/agents/llm/modelRef';
import { UsageError } from '../engine/errors';
import type { TaskRunRequest } from '../engine/runRequest';
import { numberOption, positiveNumber } from './options';

export const MODEL_USAGE = `model options (--agent llm, implied by --model):
  --model P/M          openai/M, anthropic/M, hud/M (via HUD_GATEWAY_URL), openai-compatible/M (needs --base-url);
                       keys from OPENAI_API_KEY, ANTHROPIC_API_KEY, HUD_API_KEY
  --base-url URL       the model server (overrides the provider's address)
  --system TEXT        added to the default system prompt
  --max-steps N        model replies before giving up (default ${DEFAULT_LLM_SETTINGS.maxSteps})
  --max-tokens N       output tokens per reply (default ${DEFAULT_LLM_SETTINGS.maxOutputTokens})
  --temperature X      sampling temperature (default: the server's)
  --request-timeout S  seconds per model request (default ${DEFAULT_LLM_SETTINGS.policy.requestTimeoutMs / 1000})
  --token-budget N     input + output tokens for the whole episode
  --max-retries N      retries of a model request on 429, 5xx and dropped connections (default ${DEFAULT_LLM_SETTINGS.policy.maxRetries})

judge options (the verifier's model gateway; default: the host's HUD_GATEWAY_URL with HUD_API_KEY, if set):
  --judge-model P/M    the model LLMJudgeGrader and HUD_GATEWAY_URL reach (P/* keeps the name the grader asks for)
  --judge-base-url URL the judge model's server
`;

export interface ModelFlagValues {
  'base-url'?: string | undefined;
  system?: string | undefined;
  'max-steps'?: string | undefined;
  'max-tokens'?: string | undefined;
  temperature?: string | undefined;
  'request-timeout'?: string | undefined;
  'token-budget'?: string | undefined;
  'max-retries'?: string | undefined;
  'judge-model'?: string | undefined;
  'judge-base-url'?: string | undefined;
}

/**
 * The upstream of the verifier's model gateway: --judge-model (with
 * --judge-base-url), else an OpenAI-compatible --judge-base-url, else the
 * host's own HUD gateway when HUD_GATEWAY_URL and HUD_API_KEY are set.
 */
export function judgeModel(
  values: ModelFlagValues,
  env: Readonly<Record<string, string | undefined>>,
): ModelEndpoint | undefined {
  const baseUrl = values['judge-base-url'];
  const name =
    values['judge-model'] ??
    (baseUrl ? 'openai-compatible/*' : env['HUD_GATEWAY_URL'] && env['HUD_API_KEY'] ? 'hud/*' : undefined);
  if (!name) return undefined;
  return resolveModel(name, { env, ...(baseUrl ? { baseUrl } : {}) });
}

/** Everything of an AgentChoice but the model name (eval makes one agent per --model). */
export function llmChoice(
  values: ModelFlagValues,
  env: Readonly<Record<string, string | undefined>>,
): Omit<AgentChoice, 'model'> {
  const llm: Partial<LlmSettings> = {};
  const maxSteps = positiveNumber('max-steps', values['max-steps'], true);
  const maxTokens = positiveNumber('max-tokens', values['max-tokens'], true);
  const temperature = numberOption('temperature', values.temperature);
  const requestSec = positiveNumber('request-timeout', values['request-timeout'], false);
  const budget = positiveNumber('token-budget', values['token-budget'], true);
  if (values.system) llm.system = values.system;
  if (maxSteps !== undefined) llm.maxSteps = maxSteps;
  if (maxTokens !== undefined) llm.maxOutputTokens = maxTokens;
  if (temperature !== undefined) llm.temperature = temperature;
  const retries = values['max-retries'] === undefined ? undefined : Number(values['max-retries']);
  if (retries !== undefined && !(Number.isInteger(retries) && retries >= 0)) {
    throw new UsageError(`--max-retries must be an integer >= 0, got "${values['max-retries']}"`);
  }
  if (requestSec !== undefined || retries !== undefined) {
    llm.policy = {
      requestTimeoutMs: requestSec === undefined ? DEFAULT_LLM_SETTINGS.policy.requestTimeoutMs : requestSec * 1000,
      maxRetries: retries ?? DEFAULT_LLM_SETTINGS.policy.maxRetries,
    };
  }
  if (budget !== undefined) llm.tokenBudget = budget;
  return { modelEnv: env, llm, ...(values['base-url'] ? { baseUrl: values['base-url'] } : {}) };
}

/**
 * A run request with the model flags applied: `model` makes its agent the llm
 * agent with that model (checked here, so a missing key is a usage error
 * before anything starts), and the judge flags give the verifier a gateway.
 */
export function withModelFlags(
  base: Omit<TaskRunRequest, 'ref'>,
  values: ModelFlagValues & { agent?: string | undefined },
  env: Readonly<Record<string, string | undefined>>,
  model: string | undefined,
): Omit<TaskRunRequest, 'ref'> {
  if (model && values.agent !== undefined && values.agent !== 'llm') {
    throw new UsageError(`--model runs the llm agent; it cannot be combined with --agent ${values.agent}`);
  }
  const judge = judgeModel(values, env);
  let agent = base.agent;
  if (model) {
    const choice: AgentChoice = { agent: 'llm', model, ...llmChoice(values, env) };
    createAgent(choice);
    agent = { choice };
  }
  return { ...base, agent, ...(judge ? { judge } : {}) };
}
