import { runCases } from './cases';
import { uk999Cases } from './uk999.cases';

describe('validateUk999', () => {
	runCases(uk999Cases);
});
