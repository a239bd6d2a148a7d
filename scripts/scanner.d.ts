// The parts of n8n's scanner that scripts/scan.ts uses (the package ships no types).
declare module '@n8n/scan-community-package/scanner/scanner.mjs' {
	export interface ScanResult {
		passed: boolean;
		message?: string;
		details?: string;
	}
	export const SOURCE_FILE_PATTERNS: string[];
	export function analyzePackage(dir: string, patterns: string[]): Promise<ScanResult>;
}
