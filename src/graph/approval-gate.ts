/**
 * A node's gate and approval levels as the loader resolves them: `approval: before` and the graph's and the
 * node's `approvals:`, present only when set so graphs without them keep their hash.
 */
import type { ApprovalPolicy } from './schema/approval.js';
import type { GraphFile, NodeFile } from './schema/schema.js';

/** The node fields, in sorted key order (`approval`, `approvals`), to spread after `approaches`. */
export function gateFields(
  file: GraphFile,
  node: NodeFile,
): { approval?: 'before'; approvals?: ApprovalPolicy[] } {
  const levels = [file.approvals, node.approvals].filter((l): l is ApprovalPolicy => l !== undefined);
  return {
    ...(node.approval !== undefined ? { approval: node.approval } : {}),
    ...(levels.length ? { approvals: levels } : {}),
  };
}
