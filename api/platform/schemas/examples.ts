/**
 * Values the OpenAPI examples of the Platform API share, so that its reference (/docs) tells one
 * consistent story: a user's datanet, a pod in it, a vote on it, an agent.
 */
export const EXAMPLE = {
  userId: "7c9e6679-7425-40de-944b-e07fc1f90ae7",
  agentId: "d2a4f6c8-1b3d-4e5f-8a7b-9c0d1e2f3a4b",
  subnetId: "0b6f1c52-2d4e-4f7a-9c3b-5e8d1a2f3b4c",
  podId: "3f1c2a9e-8b7d-4c6e-9f10-2a3b4c5d6e7f",
  wallet: "0x70997970c51812dc3a010c7d01b50e0d17dc79c8",
  primaryToken: "0x5fbdb2315678afecb367f032d93f642f64180aa3",
  txHash: `0x${"ab".repeat(32)}`,
  voteId: `0x${"ab".repeat(32)}-3`,
  createdAt: "2026-01-12T09:30:00.000Z",
  updatedAt: "2026-01-14T16:05:00.000Z",
} as const;
