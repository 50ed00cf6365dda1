// The rollout rules of docs/hud-protocol.md (shared with the Local provider) on real containers.
import { before } from 'node:test';
import { defineRolloutRuleTests } from '../engine-local/rules';
import { dockerUnderTest } from './dockerUnderTest';
import { dockerReady } from './support';

before(dockerReady);
defineRolloutRuleTests(dockerUnderTest);
