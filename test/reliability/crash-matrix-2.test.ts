// The crash matrix's bounded sample, its second part (crash-matrix.test.ts holds the matrix's checks and the first
// part; crash-sample.ts says how the sample is parted).
import { describeSamplePart } from './crash-sample.js';

describeSamplePart(1);
