import { localUnderTest } from './localUnderTest';
import { defineRolloutRuleTests } from './rules';

defineRolloutRuleTests(localUnderTest);
