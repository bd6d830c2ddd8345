// Imported by the Node zygote before it forks (see _pinbench_warm.cjs).
import { ready } from './_pinbench_warm.cjs';

export default ready;
