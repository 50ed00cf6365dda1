import { dockerUnderTest } from '../docker/dockerUnderTest';
import { defineLlmRolloutTests } from './llmRollout';

defineLlmRolloutTests(dockerUnderTest);
