/**
 * A stand-in for the CLI's CredentialsHelper, reduced to what this package's credential uses:
 * a `generic` authenticate (HTTP Basic from two expressions), property defaults, and fields that
 * may be expressions. What n8n's helper does for other credentials (extends, pre-authentication,
 * OAuth token updates) is refused, so a test that needs it fails loudly instead of passing on a copy.
 *
 * n8n applies `authenticate` in the CLI (packages/cli/src/credentials-helper.ts), not in n8n-core:
 * 'generic' resolves every key and value with the workflow's expression engine (mode 'internal',
 * only `$credentials` as additional key; falsy results become '') and assigns them into
 * requestOptions[outerKey]; `getDecrypted` fills the type's property defaults.
 */
import { ICredentialsHelper, NodeHelpers, deepCopy, isExpression } from 'n8n-workflow';
import type {
	ICredentialDataDecryptedObject,
	ICredentialType,
	ICredentials,
	ICredentialsExpressionResolveValues,
	IDataObject,
	IExecuteData,
	IHttpRequestOptions,
	INode,
	INodeParameters,
	INodeProperties,
	IRequestOptionsSimplified,
	IWorkflowExecuteAdditionalData,
	Workflow,
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
		incomingRequestOptions: IHttpRequestOptions | IRequestOptionsSimplified,
		workflow?: Workflow,
		node?: INode,
	): Promise<IHttpRequestOptions> {
		const requestOptions = incomingRequestOptions as IHttpRequestOptions;
		const { authenticate } = this.getType(typeName);
		if (typeof authenticate !== 'object' || authenticate.type !== 'generic') {
			throw new Error(`harness: only generic authenticate is supported (${typeName})`);
		}
		if (!workflow || !node) throw new Error('harness: authenticate needs the workflow and node');
		requestOptions.headers ??= {};
		const target = requestOptions as unknown as Record<string, Record<string, unknown>>;
		for (const [outerKey, outerValue] of Object.entries(authenticate.properties)) {
			for (const [key, value] of Object.entries(outerValue as IDataObject)) {
				const resolve = (text: string) => resolveCredentialValue(text, credentials, workflow, node);
				target[outerKey] ??= {};
				target[outerKey][resolve(key)] = resolve(value as string);
			}
		}
		return requestOptions;
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

/** As the CLI's CredentialsHelper.resolveValue: falsy results become ''. */
function resolveCredentialValue(
	value: string,
	credentials: ICredentialDataDecryptedObject,
	workflow: Workflow,
	node: INode,
): string {
	if (!isExpression(value)) return value;
	const resolved = workflow.expression.getSimpleParameterValue(
		node,
		value,
		'internal',
		{ $credentials: credentials },
		undefined,
		'',
	);
	return resolved ? resolved.toString() : '';
}
