// The built-in store's routes touch files only (api/eval/storage/local.ts), never the database.
export {};
