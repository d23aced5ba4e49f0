import { backends } from './backends.js';
import { userRecordsContract } from './user-records-contract.js';

for (const backend of backends.filter((b) => b.name !== 'memory')) userRecordsContract(backend);
