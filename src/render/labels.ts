// The label interlock puts on a subject while a node waits for a person; the Action adds it, the approvals remove it.
export const NEEDS_HUMAN_LABEL = 'interlock: needs human';
