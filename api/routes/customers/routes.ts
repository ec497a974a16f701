/** Placeholder until the group lands. */
import type { AnyRoute } from '../../route.ts';

export default [] as AnyRoute[];
