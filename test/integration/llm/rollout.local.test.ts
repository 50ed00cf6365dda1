import { localUnderTest } from '../engine-local/localUnderTest';
import { defineLlmRolloutTests } from './llmRollout';

defineLlmRolloutTests(localUnderTest);
