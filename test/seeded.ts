/** The sandbox's seeded generator, so generated test data is the same on every run. */
export { seededRandom as seeded } from '../sandbox/random';
