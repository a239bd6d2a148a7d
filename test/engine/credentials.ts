/**
 * A stand-in for the CLI's CredentialsHelper, reduced to what this package's credentials use:
 * an `authenticate` function, property defaults, and fields that may be expressions. What n8n's
 * helper does for other credentials (the `generic` authenticate form, extends, pre-authentication,
 * OAuth token updates) is refused, so a test that needs it fails loudly instead of passing on a copy.
 *
 * n8n applies `authenticate` in the CLI (packages/cli/src/credentials-helper.ts), not in n8n-core:
 * a function is called with the decrypted data and the request options, and what it returns is
 * the request; `getDecrypted` fills the type's property defaults.
 */
import { ICredentialsHelper, NodeHelpers, deepCopy } from 'n8n-workflow';
import type {
	ICredentialDataDecryptedObject,
	ICredentialType,
	ICredentials,
	ICredentialsExpressionResolveValues,
	IExecuteData,
	IHttpRequestOptions,
	INodeParameters,
	INodeProperties,
	IRequestOptionsSimplified,
	IWorkflowExecuteAdditionalData,
	WorkflowExecuteMode,
} from 'n8n-workflow';

import { loadPackageCredentialType } from './nodeTypes';

/** Data is keyed by credential type name; each read returns a fresh copy, as decrypting would. */
export class HarnessCredentialsHelper extends ICredentialsHelper {
	private readonly types = new Map<string, ICredentialType>();

	constructor(
		credentialTypes: ICredentialType[],
		private readonly store: Record<string, ICredentialDataDecryptedObject>,
	) {
		super();
		for (const type of credentialTypes) this.types.set(type.name, type);
	}

	private getType(name: string): ICredentialType {
		const type = this.types.get(name) ?? loadPackageCredentialType(name);
		if (!type) throw new Error(`harness: unknown credential type "${name}"`);
		this.types.set(name, type);
		return type;
	}

	getParentTypes(): string[] {
		return [];
	}

	isCredentialUsableByNode(): boolean {
		return true;
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		requestOptions: IHttpRequestOptions | IRequestOptionsSimplified,
	): Promise<IHttpRequestOptions> {
		const { authenticate } = this.getType(typeName);
		if (typeof authenticate !== 'function') {
			throw new Error(`harness: only an authenticate function is supported (${typeName})`);
		}
		return await authenticate(credentials, requestOptions as IHttpRequestOptions);
	}

	async preAuthentication(): Promise<undefined> {
		return undefined;
	}

	async runPreAuthentication(): Promise<undefined> {
		return undefined;
	}

	async getCredentials(): Promise<ICredentials> {
		throw new Error('harness: getCredentials is not used by this package; use getDecrypted');
	}

	async getDecrypted(
		_additionalData: IWorkflowExecuteAdditionalData,
		_nodeCredentials: unknown,
		type: string,
		mode: WorkflowExecuteMode,
		executeData?: IExecuteData,
		raw?: boolean,
		expressionResolveValues?: ICredentialsExpressionResolveValues,
	): Promise<ICredentialDataDecryptedObject> {
		const stored = this.store[type];
		if (stored === undefined) throw new Error(`harness: no credentials of type "${type}" given`);
		const data = deepCopy(stored);
		if (raw === true) return data;
		const withDefaults = (NodeHelpers.getNodeParameters(
			this.getCredentialsProperties(type),
			data as INodeParameters,
			true,
			false,
			null,
			null,
		) ?? {}) as unknown as ICredentialDataDecryptedObject;
		if (!expressionResolveValues) return withDefaults;
		// Like the CLI: credential fields may be expressions resolved in the node's context.
		const v = expressionResolveValues;
		return v.workflow.expression.getParameterValue(
			withDefaults as INodeParameters,
			v.runExecutionData,
			v.runIndex,
			v.itemIndex,
			v.node.name,
			v.connectionInputData,
			mode,
			{},
			executeData,
			false,
			withDefaults,
		) as ICredentialDataDecryptedObject;
	}

	async updateCredentials(): Promise<void> {
		throw new Error('harness: this package never updates its credential');
	}

	async updateCredentialsOauthTokenData(): Promise<void> {
		throw new Error('harness: this package uses no OAuth');
	}

	getCredentialsProperties(type: string): INodeProperties[] {
		return this.getType(type).properties;
	}
}
