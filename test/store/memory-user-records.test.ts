import { backends } from './backends.js';
import { userRecordsContract } from './user-records-contract.js';

userRecordsContract(backends.find((b) => b.name === 'memory')!);
