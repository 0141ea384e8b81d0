export { issueKeyForNewAccount } from "../../keys";
